/**
 * Loads the screens of a capture (hierarchy text or file, screenshot file or data URI) into
 * bytes with their formats and checks their contents, before anything is stored; then computes
 * their blob references.
 *
 * File access arrives as a function, so this module stays free of I/O of its own.
 *
 * @module
 */
import { encodeScreen, type HierarchyFormat, type Screen } from "../screens/mod.ts";
import { decodeBase64 } from "./base64.ts";
import { blobRefOf, type PendingBlob } from "./blob_ref.ts";
import type { CaptureV1, ResolvedScreen } from "./capture_v1.ts";
import {
  checkHierarchy,
  checkScreenshot,
  hierarchyText,
  SCREENSHOT_TYPES,
} from "./check_screen.ts";
import { detectHierarchyFormat, hierarchyMediaType } from "./detect_hierarchy.ts";
import { FormatError } from "../input/mod.ts";

/** A screen read into memory, not stored yet. */
export interface PendingScreen {
  hierarchy: PendingBlob;
  format: HierarchyFormat;
  screenshot?: PendingBlob;
  /**
   * The screen's size as its hierarchy gives it (for checking the action's point); `window`
   * when the hierarchy holds one window, not the screen (a dialog dumped alone: nothing in it
   * reaches the screen's left or top edge), so the screen may be larger than it.
   */
  size?: { width: number; height: number; window?: boolean };
  /** The screen as checked (parsed once per distinct hierarchy, shared by the actions showing it). */
  screen?: Screen;
  /** The checked screen's bytes (`encodeScreen`), to store beside the hierarchy's blob. */
  parsed?: Uint8Array;
}

/** Options of {@linkcode loadCaptureScreens}. */
export interface LoadScreensOptions {
  /** Reads a file named relative to the capture file's folder. */
  readFile(relativePath: string): Promise<Uint8Array>;
  /** Keep each parsed screen on its pending screen (for a projection right after the import). */
  keepScreens?: boolean;
  /**
   * Keep each parsed screen's bytes on its pending screen (`encodeScreen`), so the store keeps
   * it and later projections need not parse the hierarchy again.
   */
  encodeScreens?: boolean;
  /** The text a lifted inline hierarchy stands for (`LiftedJson.text`), else undefined. */
  liftedText?(s: string): string | undefined;
}

/** Screenshot media types by file extension. */
const IMAGE_TYPES = new Map(
  Object.entries(SCREENSHOT_TYPES).flatMap(([type, t]) => t.extensions.map((e) => [e, type])),
);

/**
 * Reads every action's hierarchy and screenshot into memory, detects hierarchy formats and
 * checks each screen's contents (`checkHierarchy`: it parses as its format, each distinct text
 * once; `checkScreenshot`: an image of its type).
 *
 * @param capture a parsed capture
 * @param options how to read a file next to the capture
 * @returns the pending screen of each action (undefined when it has no hierarchy)
 * @throws {FormatError} naming `actions.N.viewHierarchy…` or `actions.N.screenshot` when a
 *   file cannot be read, a format cannot be detected, a data URI is malformed, a hierarchy does
 *   not parse or a screenshot is not an image of its type
 */
export async function loadCaptureScreens(
  capture: CaptureV1,
  options: LoadScreensOptions,
): Promise<(PendingScreen | undefined)[]> {
  const enc = new TextEncoder();
  const out: (PendingScreen | undefined)[] = [];
  // `format text` of the hierarchies checked already → the size (and the screen, when kept)
  const parsed = new Map<
    string,
    { width: number; height: number; window: boolean; screen?: Screen; parsed?: Uint8Array }
  >();
  for (const [i, a] of capture.actions.entries()) {
    const h = a.viewHierarchy;
    if (h === undefined) {
      out.push(undefined);
      continue;
    }
    let field = `actions.${i}.viewHierarchy`;
    let text: string;
    let bytes: Uint8Array | undefined;
    if (typeof h === "string") text = options.liftedText?.(h) ?? h;
    else if (!Array.isArray(h) && typeof h.file === "string" && Object.keys(h).length === 1) {
      field += ".file";
      bytes = await read(options, h.file, field);
      text = hierarchyText(bytes, field);
    } else text = JSON.stringify(h);
    const format = a.format === undefined || a.format === "auto"
      ? detectHierarchyFormat(text)
      : a.format;
    if (!format) {
      throw new FormatError(
        `${field}: cannot detect the hierarchy format (set actions.${i}.format)`,
        field,
      );
    }
    // a long string key would be hashed by its length only: equal-length dumps then compare
    // their whole text on every lookup
    bytes ??= enc.encode(text);
    const key = `${format} ${blobRefOf({ bytes, mediaType: "" }).hash}`;
    let checked = parsed.get(key);
    if (checked === undefined) {
      const s = checkHierarchy(text, format, field, capture.platform);
      const encoded = options.encodeScreens ? encodeScreen(s) : undefined;
      checked = {
        width: s.width,
        height: s.height,
        window: windowOnly(s),
        ...(options.keepScreens ? { screen: s } : {}),
        ...(encoded ? { parsed: encoded } : {}),
      };
      parsed.set(key, checked);
    }
    const screen: PendingScreen = {
      hierarchy: { bytes, mediaType: hierarchyMediaType(format) },
      format,
      size: {
        width: checked.width,
        height: checked.height,
        ...(checked.window ? { window: true } : {}),
      },
      ...(checked.screen ? { screen: checked.screen } : {}),
      ...(checked.parsed ? { parsed: checked.parsed } : {}),
    };
    if (a.screenshot !== undefined) {
      const shotField = `actions.${i}.screenshot`;
      screen.screenshot = await screenshotOf(options, a.screenshot, shotField);
      checkScreenshot(screen.screenshot, shotField);
    }
    out.push(screen);
  }
  return out;
}

/**
 * Whether a hierarchy holds one window rather than the screen: none of its top nodes (the
 * windows under the root) with an area reaches the left edge, or none the top edge (the ANR
 * dialog `[28,974][1052,1480]`). Its extent then is not the screen's size.
 */
function windowOnly(s: Screen): boolean {
  const tops = s.root.bounds.x === 0 && s.root.bounds.y === 0 &&
      s.root.bounds.w === s.width && s.root.bounds.h === s.height
    ? s.root.children
    : [s.root];
  const shown = tops.filter((n) => n.bounds.w > 0 && n.bounds.h > 0);
  if (shown.length === 0) return false;
  return !shown.some((n) => n.bounds.x <= 0) || !shown.some((n) => n.bounds.y <= 0);
}

async function read(options: LoadScreensOptions, path: string, field: string) {
  try {
    return await options.readFile(path);
  } catch (err) {
    const why = err instanceof Deno.errors.NotFound
      ? "no such file"
      : err instanceof Error
      ? err.message
      : String(err);
    throw new FormatError(`${field}: cannot read ${JSON.stringify(path)}: ${why}`, field);
  }
}

async function screenshotOf(
  options: LoadScreensOptions,
  ref: string,
  field: string,
): Promise<PendingBlob> {
  if (ref.startsWith("data:")) {
    const m = /^data:([\w.+-]+\/[\w.+-]+);base64,([A-Za-z0-9+/=\s]*)$/.exec(ref);
    if (!m) throw new FormatError(`${field}: expected a base64 data: URI`, field);
    const bytes = decodeBase64(m[2]!);
    if (!bytes) throw new FormatError(`${field}: invalid base64 in data: URI`, field);
    return { bytes, mediaType: m[1]! };
  }
  const mediaType = IMAGE_TYPES.get(ref.toLowerCase().split(".").at(-1)!);
  if (mediaType === undefined) {
    throw new FormatError(
      `${field}: cannot tell the image type of ${JSON.stringify(ref)} (expected a file ending in .${
        [...IMAGE_TYPES.keys()].join(", .")
      })`,
      field,
    );
  }
  return { bytes: await read(options, ref, field), mediaType };
}

/**
 * Computes the blob references of pending screens (nothing is stored).
 *
 * @param screens the pending screens by action
 * @returns the resolved screens (same indexes) and the blobs to store
 */
export function resolveScreens(
  screens: readonly (PendingScreen | undefined)[],
): { screens: (ResolvedScreen | undefined)[]; blobs: PendingBlob[] } {
  const blobs: PendingBlob[] = [];
  const resolved = screens.map((s) => {
    if (!s) return undefined;
    blobs.push(s.hierarchy);
    const r: ResolvedScreen = { hierarchy: blobRefOf(s.hierarchy), format: s.format };
    if (s.screenshot) {
      blobs.push(s.screenshot);
      r.screenshot = blobRefOf(s.screenshot);
    }
    return r;
  });
  return { screens: resolved, blobs };
}
