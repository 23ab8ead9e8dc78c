/**
 * The range of a screen coordinate Cairn takes in: a point an action hit (a capture's
 * `coordinates`, a recording's `x`/`y`, a Recorder step's offsets, a synthetic action, a blaze
 * `tap x=…,y=…`, an events file's or an HTTP append's `ActionPerformed.point`) or a scroll
 * offset.
 *
 * Why ±33,554,431: Chromium lays pages out in `LayoutUnit`, a 32-bit fixed-point number with 6
 * fractional bits (1/64 px), so no position or size on a page it draws exceeds
 * (2³¹ − 1) / 64 ≈ 33,554,431 CSS px either way; a point beyond that is on no page. Device
 * pixels of Android and iOS screens are far inside it. So a finite number in that range is the
 * widest a real point can be, and `1e300` or `-1e20` is refused where it comes in instead of
 * reaching a trail or a click.
 *
 * Only input is checked: the stored event schemas (`events/schemas.ts`) keep any number, so an
 * event stored before this bound is read as it was.
 *
 * @module
 */
import { z } from "zod";

/** The largest coordinate magnitude, in CSS px: Chromium's largest layout size (`LayoutUnit`). */
export const MAX_COORDINATE = 33_554_431;

const RANGE_MESSAGE =
  `expected a coordinate from -${MAX_COORDINATE} to ${MAX_COORDINATE} (no page is larger)`;

/** One coordinate: a finite number within ±{@linkcode MAX_COORDINATE}. */
export const Coordinate = z.number().min(-MAX_COORDINATE, RANGE_MESSAGE).max(
  MAX_COORDINATE,
  RANGE_MESSAGE,
);
export type Coordinate = z.infer<typeof Coordinate>;

/** A point on a screen or page: `{ x, y }`, each a {@linkcode Coordinate}. */
export const ScreenPoint = z.object({ x: Coordinate, y: Coordinate });
export type ScreenPoint = z.infer<typeof ScreenPoint>;

/** The fields of an event's data that hold a point, by event type. */
const POINT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  ActionPerformed: ["point", "to"],
  ScreenCaptured: ["scroll"],
};

/**
 * The first point of an incoming event (an events file's line, an HTTP append) outside the
 * range, for data its stored schema has already accepted. Stored events are never checked.
 *
 * @param type the event type
 * @param data the event's data
 * @returns the field (`point.x`) and why, or undefined when every point is in range
 * @example
 * ```ts
 * const bad = pointOutOfRange("ActionPerformed", { point: { x: 1e300, y: 0 } });
 * if (bad?.path !== "point.x") throw new Error();
 * if (pointOutOfRange("ActionPerformed", { point: { x: 12, y: 40 } })) throw new Error();
 * ```
 */
export function pointOutOfRange(
  type: string,
  data: unknown,
): { path: string; message: string } | undefined {
  const fields = POINT_FIELDS[type];
  if (fields === undefined || data === null || typeof data !== "object") return undefined;
  for (const field of fields) {
    const point = (data as Record<string, unknown>)[field];
    if (point === undefined || point === null || typeof point !== "object") continue;
    for (const axis of ["x", "y"] as const) {
      const v = (point as Record<string, unknown>)[axis];
      if (!Coordinate.safeParse(v).success) {
        return { path: `${field}.${axis}`, message: RANGE_MESSAGE };
      }
    }
  }
  return undefined;
}
