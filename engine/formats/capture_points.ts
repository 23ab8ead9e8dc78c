/**
 * Checks a capture's points against its screens before anything is stored: a point outside the
 * screen it was made on (beyond a small tolerance) cannot have hit anything there, and an
 * action that needs a screen to resolve its point (a tap, a read, an assertion) must have one
 * captured at or before it, or a target or runtime selector naming the element. The screen is
 * the hierarchy's extent, or the viewport the capture declares when that is larger; a hierarchy
 * of one window (a dialog dumped alone) with no viewport declared has no known right or bottom
 * edge. Native screens only (Android, iOS): a web point may lie beyond the viewport's hierarchy
 * (a scrolled page).
 *
 * @module
 */
import type { CaptureV1 } from "./capture_v1.ts";
import type { PendingScreen } from "./capture_screens.ts";
import { FormatError } from "../input/mod.ts";

/** How far outside the screen a point may lie (a touch on the edge, rounding): 2% or 24 px. */
export function pointTolerance(size: number): number {
  return Math.max(24, Math.ceil(size * 0.02));
}

/** Actions whose point is resolved to a node on the screen before them. */
const NEEDS_SCREEN = new Set([
  "tap",
  "doubleTap",
  "longPress",
  "check",
  "select",
  "readText",
  "assertText",
  "assertVisible",
]);

/**
 * Throws on the first action whose point lies outside its screen, or that needs a screen and
 * has none.
 *
 * @param capture a parsed capture
 * @param screens the pending screen of each action (undefined when it has none)
 * @throws {FormatError} naming `actions.N.coordinates` (or `.to`) or `actions.N.viewHierarchy`
 * @example
 * ```ts
 * import type { CaptureV1 } from "./capture_v1.ts";
 * const capture: CaptureV1 = {
 *   format: "cairn.capture/v1",
 *   platform: "android",
 *   actions: [{ action: "tap", coordinates: { x: 5000, y: 10 } }],
 * };
 * const bytes = new Uint8Array();
 * const screen = {
 *   hierarchy: { bytes, mediaType: "application/xml" },
 *   format: "uiautomator2" as const,
 *   size: { width: 1080, height: 2424 },
 * };
 * let refused = false;
 * try {
 *   checkCapturePoints(capture, [screen]);
 * } catch {
 *   refused = true;
 * }
 * if (!refused) throw new Error();
 * ```
 */
export function checkCapturePoints(
  capture: CaptureV1,
  screens: readonly (PendingScreen | undefined)[],
): void {
  if (capture.platform !== "android" && capture.platform !== "ios") return;
  let size: { width: number; height: number; window?: boolean } | undefined;
  let viewport: { width: number; height: number } | undefined;
  let seen = false;
  capture.actions.forEach((a, i) => {
    const s = screens[i];
    if (s) {
      seen = true;
      size = s.size;
      viewport = a.viewport ?? capture.viewport;
    }
    for (const field of ["coordinates", "to"] as const) {
      const p = a[field];
      if (p === undefined || size === undefined || size.width <= 0 || size.height <= 0) continue;
      // the screen is the hierarchy's extent, or the viewport the capture declares when that
      // is larger (a dialog dumped alone); a window with no viewport declared has no known
      // right or bottom edge: only a point before the left or top edge is out
      const width = Math.max(size.width, viewport?.width ?? 0);
      const height = Math.max(size.height, viewport?.height ?? 0);
      const open = size.window === true && viewport === undefined;
      const tx = pointTolerance(width);
      const ty = pointTolerance(height);
      if (
        p.x < -tx || p.y < -ty ||
        (!open && (p.x > width + tx || p.y > height + ty))
      ) {
        const what = width === size.width && height === size.height ? "screen" : "viewport";
        throw new FormatError(
          `actions.${i}.${field}: (${p.x}, ${p.y}) is outside the ${width}×${height} ` +
            `${what} the ${a.action} was made on${s ? "" : " (the last one captured before it)"}`,
          `actions.${i}.${field}`,
        );
      }
    }
    const named = a.target !== undefined || a.runtimeSelector !== undefined;
    if (!seen && a.coordinates !== undefined && NEEDS_SCREEN.has(a.action) && !named) {
      throw new FormatError(
        `actions.${i}.viewHierarchy: ${
          article(a.action)
        } ${a.action} at (${a.coordinates.x}, ${a.coordinates.y}) ` +
          `needs the screen it was made on, and none was captured at or before it (add a ` +
          `viewHierarchy, or a target or runtimeSelector naming the element)`,
        `actions.${i}.viewHierarchy`,
      );
    }
  });
}

/** "a" or "an" before an action's name ("an assertText", "a tap"). */
function article(word: string): string {
  return /^[aeiou]/i.test(word) ? "an" : "a";
}
