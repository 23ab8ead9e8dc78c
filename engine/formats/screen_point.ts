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
 * reaching a trail or a click. Sizes (a viewport, an element's box) take the same bound, and a
 * viewport must have an area.
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

const AREA_MESSAGE = "expected a size above 0 (a viewport has an area)";
const BOX_MESSAGE = "expected a size of 0 or more";

/** A size on a screen or page: `{ width, height }`, each above 0 and within the range. */
export const ScreenSize = z.object({
  width: z.number().positive(AREA_MESSAGE).max(MAX_COORDINATE, RANGE_MESSAGE),
  height: z.number().positive(AREA_MESSAGE).max(MAX_COORDINATE, RANGE_MESSAGE),
});

/** An element's box: a {@linkcode ScreenPoint} corner and a width and height of 0 or more. */
const Bounds = z.object({
  x: Coordinate,
  y: Coordinate,
  w: z.number().nonnegative(BOX_MESSAGE).max(MAX_COORDINATE, RANGE_MESSAGE),
  h: z.number().nonnegative(BOX_MESSAGE).max(MAX_COORDINATE, RANGE_MESSAGE),
});

/** The shape each geometric field must have. */
const SHAPES = {
  point: ScreenPoint,
  size: ScreenSize,
  bounds: Bounds,
  ratio: z.number().positive("expected a device pixel ratio above 0"),
} as const;

/** The fields of an event's data that hold geometry, by event type, with their shape. */
const GEOMETRY: Readonly<Record<string, readonly [string, keyof typeof SHAPES][]>> = {
  SessionStarted: [["viewport", "size"], ["devicePixelRatio", "ratio"]],
  ActionPerformed: [["point", "point"], ["to", "point"]],
  ScreenCaptured: [["scroll", "point"], ["viewport", "size"], ["devicePixelRatio", "ratio"]],
  PlaybackStarted: [["viewport", "size"]],
  PlaybackActionResolved: [["point", "point"], ["bounds", "bounds"]],
};

/**
 * The first geometric field of an incoming event (an events file's line, an HTTP append)
 * outside its range, for data its stored schema has already accepted: a point or box beyond
 * ±{@linkcode MAX_COORDINATE}, a viewport of no area, a device pixel ratio of 0. Stored events
 * are never checked.
 *
 * @param type the event type
 * @param data the event's data
 * @returns the field (`point.x`) and why, or undefined when every field is in range
 * @example
 * ```ts
 * const bad = geometryOutOfRange("ActionPerformed", { point: { x: 1e300, y: 0 } });
 * if (bad?.path !== "point.x") throw new Error();
 * if (geometryOutOfRange("SessionStarted", { viewport: { width: 0, height: 720 } })?.path !== "viewport.width") {
 *   throw new Error();
 * }
 * if (geometryOutOfRange("ActionPerformed", { point: { x: 12, y: 40 } })) throw new Error();
 * ```
 */
export function geometryOutOfRange(
  type: string,
  data: unknown,
): { path: string; message: string } | undefined {
  const fields = GEOMETRY[type];
  if (fields === undefined || data === null || typeof data !== "object") return undefined;
  for (const [field, shape] of fields) {
    const value = (data as Record<string, unknown>)[field];
    if (value === undefined) continue;
    const r = SHAPES[shape].safeParse(value);
    if (!r.success) {
      const issue = r.error.issues[0]!;
      return { path: [field, ...issue.path].join("."), message: issue.message };
    }
  }
  return undefined;
}
