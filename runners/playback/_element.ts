/**
 * The element a lookup found: scrolled into the viewport (input lands on points) and its text
 * read again by the level that found it.
 *
 * @module
 */
import { type CascadeLevel, pickMatch } from "../../engine/playback/mod.ts";
import { center } from "../../engine/screens/mod.ts";
import type { FoundElement } from "../../drivers/mod.ts";
import type { RunContext } from "./_context.ts";

/**
 * Scrolls an element found outside the viewport into it (input lands on points, so the
 * point must be on screen) and looks it up again with the level that found it.
 */
export async function intoView(
  ctx: RunContext,
  level: CascadeLevel,
  element: FoundElement,
): Promise<FoundElement> {
  const vp = ctx.viewport;
  const c = center(element.bounds);
  if (c.x >= 0 && c.y >= 0 && c.x < vp.width && c.y < vp.height) return element;
  const dy = Math.round(c.y - vp.height / 2);
  const dx = Math.round(c.x - vp.width / 2);
  if (c.y < 0 || c.y >= vp.height) {
    await ctx.driver.scroll(dy > 0 ? "down" : "up", { distance: Math.abs(dy) });
  }
  if (c.x < 0 || c.x >= vp.width) {
    await ctx.driver.scroll(dx > 0 ? "right" : "left", { distance: Math.abs(dx) });
  }
  // The same pick as the cascade's (the n-th of an indexed level, a pattern's matches).
  for (const q of level.queries) {
    const m = pickMatch(level, await ctx.driver.find(q).catch(() => []));
    if (m.element) return m.element;
    if (m.visible.length > 0) break;
  }
  return element;
}

/**
 * The text of the element a level found, read again (a retried assertion); undefined when
 * the level no longer picks one.
 */
export async function reread(ctx: RunContext, level: CascadeLevel): Promise<string | undefined> {
  for (const q of level.queries) {
    const m = pickMatch(level, await ctx.driver.find(q).catch(() => []));
    if (m.element) return m.element.text ?? "";
    if (m.visible.length > 0) return undefined;
  }
  return undefined;
}
