/**
 * Selectors refined from the runs' screens: a failing action's element placed on the page as it
 * is now, refined from every run, fallbacks pruned that did not hold in every replay.
 *
 * @module
 */
import type { Trail } from "../../engine/trail/mod.ts";
import { heuristicsLevel } from "../../engine/trail/mod.ts";
import {
  type CapturedAction,
  describeSelector,
  placeSelectors,
  pruneSelectors,
  type RefineOptions,
  refineSelectors,
  withSelectors,
} from "../../engine/validation/mod.ts";
import type { LoopContext } from "./_context.ts";
import { selectorsOf } from "./_capture.ts";

/** Places a failing action's element on the page as it is now and gives its new selectors. */
export async function place(
  ctx: LoopContext,
  trail: Trail,
  step: number,
  action: number,
): Promise<{ trail?: Trail; evidence: string[]; line: string }> {
  const captured = capturedAction(ctx, trail, step, action);
  if (!captured?.screen || !captured.node) {
    return { evidence: [], line: "the capture has no element for this action" };
  }
  const now = await ctx.driver.snapshot();
  const r = placeSelectors(
    { screen: captured.screen, node: captured.node },
    now.screen,
    rankAt(ctx, trail, step, captured.kind),
  );
  if (!r.ok) return { evidence: [], line: r.reason };
  const key = `${step}:${action}`;
  // the page it was placed on is one of the screens its selectors held on
  const list = ctx.replayScreens.get(key) ?? [];
  if (!list.includes(now.screen)) list.push(now.screen);
  ctx.replayScreens.set(key, list);
  return {
    trail: withSelectors(trail, step, action, r.selectors),
    evidence: r.evidence,
    line: r.evidence.join("; "),
  };
}

/** The capture's record of a trail action, when the trail's step is the captured one. */
export function capturedAction(
  ctx: LoopContext,
  trail: Trail,
  step: number,
  action: number,
): CapturedAction | undefined {
  if (ctx.capture.steps.get(step) !== trail.trail[step]?.step) return undefined;
  const c = ctx.capture.actions.get(step)?.[action];
  const kind = trail.trail[step]?.recording?.[action]?.kind;
  return c && c.kind === kind ? c : undefined;
}

/** Drops fallbacks of converged steps that did not hold in every replay (strict: all of them). */
export function prune(ctx: LoopContext, trail: Trail, skip: readonly number[]): Trail {
  let out = trail;
  for (const [step, s] of trail.trail.entries()) {
    if (skip.includes(step) || ctx.state.steps[step]?.skipped) continue;
    for (const [action] of (s.recording ?? []).entries()) {
      const captured = capturedAction(ctx, out, step, action);
      const replays = ctx.replayScreens.get(`${step}:${action}`) ?? [];
      const current = selectorsOf(out, step, action);
      if (!captured?.node || replays.length === 0 || current.length < 2) continue;
      const how = rankAt(ctx, out, step, captured.kind);
      const { kept, dropped, reasons } = pruneSelectors(
        current,
        captured.node,
        replays,
        how,
        captured.screen,
      );
      if (dropped.length === 0) continue;
      out = withSelectors(out, step, action, kept);
      ctx.say(
        `  step ${step + 1}: dropped fallback ${
          dropped.map((d, k) => `${describeSelector(d)} (${reasons[k]})`).join(", ")
        }`,
      );
    }
  }
  return out;
}

/**
 * How a step's candidates are ranked and matched: at the heuristics level of the capture's
 * projection the trail is compared with (its own `config.heuristics`, else the version
 * projected), in the step's selector mode.
 */
export function rankAt(ctx: LoopContext, trail: Trail, step: number, kind: string): RefineOptions {
  const version = trail.config.heuristics ?? ctx.capture.trail.config.heuristics;
  const mode = trail.trail[step]?.selectorMode ?? trail.config.selectorMode;
  return {
    platform: trail.config.platform ?? "web",
    kind,
    ...(version !== undefined ? { level: heuristicsLevel(version) } : {}),
    ...(mode !== undefined ? { mode } : {}),
  };
}

export function refine(
  ctx: LoopContext,
  trail: Trail,
  step: number,
  action: number,
): { trail?: Trail; line: string } {
  const captured = capturedAction(ctx, trail, step, action);
  if (!captured?.screen || !captured.node) {
    return { line: "not refined: the capture has no element for this action" };
  }
  const replays = ctx.replayScreens.get(`${step}:${action}`) ?? [];
  if (replays.length === 0) return { line: "not refined: no replay screen for this action" };
  const r = refineSelectors(
    { screen: captured.screen, node: captured.node },
    replays,
    rankAt(ctx, trail, step, captured.kind),
  );
  if (!r.ok) return { line: `not refined: ${r.reason}` };
  const current = selectorsOf(trail, step, action);
  if (JSON.stringify(current) === JSON.stringify(r.selectors)) {
    return { line: "not refined: the selectors that hold in every run are the current ones" };
  }
  return {
    trail: withSelectors(trail, step, action, r.selectors),
    line: `refined from ${replays.length + 1} runs: ${r.evidence.join("; ")}`,
  };
}
