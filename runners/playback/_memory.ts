/**
 * Memory: `{{…}}` templates filled from the run's memory (a missing secret named as such), and
 * under `skip_dependent` the memory keys an action reads that were never produced.
 *
 * @module
 */
import {
  mapTargetStrings,
  type PlaybackAction,
  type Target,
  targetStrings,
} from "../../engine/playback/mod.ts";
import { evaluateTemplate, templateVariables } from "../../engine/trail/mod.ts";
import { ActionFailure, errorText, type RunContext } from "./_context.ts";

/**
 * Under `skip_dependent`, the first memory key the action's templates read whose producing
 * action failed or was skipped (a value typed from an override is literal: it reads nothing).
 */
export function readsUnproduced(
  ctx: RunContext,
  index: number,
  action: PlaybackAction,
): { key: string; by: number } | undefined {
  if (ctx.options.onError !== "skip_dependent" || ctx.unproduced.size === 0) return;
  const overridden = action.type === "type" && ctx.override(index) !== undefined;
  const templates = [
    action.url,
    overridden ? undefined : action.text,
    action.value,
    action.expected,
    action.expectedPattern,
    ...(action.target ? targetStrings(action.target) : []),
  ];
  for (const t of templates) {
    if (!t?.includes("{{")) continue;
    let keys: string[];
    try {
      keys = templateVariables(t);
    } catch {
      continue; // a malformed template fails when the action runs, with its column
    }
    for (const key of keys) {
      const by = ctx.unproduced.get(key);
      if (by !== undefined) return { key, by };
    }
  }
  return undefined;
}

/** A target with its selectors' templates filled from memory (the same one when it has none). */
export function templateTarget(ctx: RunContext, target: Target): Target {
  if (!targetStrings(target).some((s) => s.includes("{{"))) return target;
  return mapTargetStrings(target, (s) => template(ctx, s));
}

/** A text with its `{{…}}` filled from memory (`literal`: as it is, e.g. an override). */
export function template(ctx: RunContext, text: string, literal = false): string {
  if (literal || !text.includes("{{")) return text;
  try {
    return (ctx.options.evaluate ?? evaluateTemplate)(text, ctx.memory);
  } catch (err) {
    let missing: string[] = [];
    try {
      missing = templateVariables(text).filter((v) => !(v in ctx.memory));
    } catch { /* a template that does not parse: the error below says so */ }
    const secret = missing.find((v) => ctx.plan.unsetMemory?.includes(v));
    if (secret !== undefined) {
      throw new ActionFailure(
        "redacted_value",
        `{{${secret}}} is a secret the trail does not hold: supply it with --memory ${secret}=…`,
      );
    }
    const hint = missing.length ? ` (supply --memory ${missing[0]}=…)` : "";
    throw new ActionFailure(
      "page_error",
      `Cannot evaluate ${JSON.stringify(text)}: ${errorText(err)}${hint}`,
    );
  }
}
