/**
 * Swipes: a pointer dragged along a line across an element or the screen, the line drawn inside
 * the part of it that is on screen.
 *
 * @module
 */
import type { PlaybackAction } from "../../engine/playback/mod.ts";
import { type Bounds, center, type Point } from "../../engine/screens/mod.ts";
import { ActionFailure, type RunContext } from "./_context.ts";
import { settle } from "./_settle.ts";

/** Drags the pointer from `from` to `to`, then lets the page settle. */
export async function swipe(ctx: RunContext, from: Point, to: Point): Promise<void> {
  if (!ctx.driver.swipe) {
    throw new ActionFailure(
      "unsupported_action_type",
      `swipe: the ${ctx.plan.platform} driver cannot drag a pointer`,
    );
  }
  await ctx.driver.swipe(from, to);
  await settle(ctx);
}

/**
 * The line a swipe drags along inside `box`: through its middle, in `direction` (the way the
 * pointer moves, Maestro's: `up` from low to high), from `margin` of the box's size before its
 * far edge to `margin` after its near edge.
 */
export function swipeLine(
  box: Bounds,
  direction: PlaybackAction["direction"],
  margin: number,
): [Point, Point] {
  const c = center(box);
  const lo = (start: number, size: number) => Math.round(start + size * margin);
  const hi = (start: number, size: number) => Math.round(start + size * (1 - margin));
  switch (direction ?? "up") {
    case "up":
      return [{ x: c.x, y: hi(box.y, box.h) }, { x: c.x, y: lo(box.y, box.h) }];
    case "down":
      return [{ x: c.x, y: lo(box.y, box.h) }, { x: c.x, y: hi(box.y, box.h) }];
    case "left":
      return [{ x: hi(box.x, box.w), y: c.y }, { x: lo(box.x, box.w), y: c.y }];
    case "right":
      return [{ x: lo(box.x, box.w), y: c.y }, { x: hi(box.x, box.w), y: c.y }];
  }
}

/** The part of `b` inside the viewport (`b` itself when it lies wholly outside). */
export function visiblePart(b: Bounds, vp: { width: number; height: number }): Bounds {
  const x = Math.max(b.x, 0);
  const y = Math.max(b.y, 0);
  const w = Math.min(b.x + b.w, vp.width) - x;
  const h = Math.min(b.y + b.h, vp.height) - y;
  return w > 0 && h > 0 ? { x, y, w, h } : b;
}
