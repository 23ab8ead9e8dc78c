/**
 * Healing aids beyond the selector cascade on a device: the point the recording acted on
 * (registered against the elements found earlier in the run, `layoutOffset`) and a text field
 * found by its label.
 *
 * @module
 */
import {
  fieldLabel,
  nodeText,
  type PlaybackAction,
  scalePoint,
  type Target,
} from "../../engine/playback/mod.ts";
import { type Point, type UiNode, walk } from "../../engine/screens/mod.ts";
import type { FoundElement } from "../../drivers/mod.ts";
import type { RunContext, Tried } from "./_context.ts";

/**
 * The text field of the recorded class whose label ({@linkcode fieldLabel}) is the recorded
 * name, when exactly one on the screen has it; the lookup is added to `tried`.
 */
export async function fieldByLabel(
  ctx: RunContext,
  target: Target,
  tried: Tried,
): Promise<{ element: FoundElement; selector: string } | undefined> {
  const name = target.name!.replace(/\s+/g, " ").trim();
  const classes = [target, ...(target.alternatives ?? [])]
    .map((t) => t.className)
    .filter((c): c is string => c !== undefined);
  if (name === "" || classes.length === 0) return undefined;
  const { root } = (await ctx.driver.snapshot()).screen;
  const found: UiNode[] = [];
  for (const [n] of walk(root)) {
    if (!n.visible || !classes.includes(n.className)) continue;
    if (fieldLabel(root, n)?.replace(/\s+/g, " ").trim() === name) found.push(n);
  }
  const selector = `label=${JSON.stringify(name)} >> ${classes[0]}`;
  tried.push({ strategy: "label", selector, matches: found.length });
  const n = found.length === 1 ? found[0]! : undefined;
  if (!n) return undefined;
  return {
    element: { bounds: n.bounds, visible: true, enabled: n.enabled, text: nodeText(n) },
    selector,
  };
}

/** The point the recording acted on for an action, scaled to the replay screen. */
export function recordedPoint(ctx: RunContext, action: PlaybackAction): Point | undefined {
  const at = action.target?.point;
  if (!at) return undefined;
  const recorded = action.viewport ?? ctx.plan.viewport;
  return scalePoint(
    at,
    recorded && { ...recorded, devicePixelRatio: ctx.plan.devicePixelRatio ?? 1 },
    ctx.viewport,
    { space: ctx.plan.coordinateSpace ?? "css" },
  );
}
