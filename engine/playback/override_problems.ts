/**
 * The value overrides a plan cannot use (`cairn replay --override N=VALUE`, HTTP
 * `value_overrides`): a number no action of the source has, or an action that types nothing.
 * Checked on the final plan (after a url may open the page first), with the numbers a replay
 * table shows: the source's own, the navigate Cairn adds having none.
 *
 * @module
 */
import { type PlaybackPlan, sourceNumbers } from "./actions.ts";

/** One override the plan cannot use. */
export interface OverrideProblem {
  /** The override's key, as given (`"5"`). */
  key: string;
  /** Why, without the key (`the plan has actions 0–1`). */
  message: string;
}

/**
 * Finds the overrides a plan cannot use.
 *
 * @param plan the final plan
 * @param keys the overrides' keys (action numbers as text)
 * @returns one problem per unusable key, in the order given; empty when all fit
 * @example
 * ```ts
 * const plan = {
 *   source: { kind: "actions" as const },
 *   platform: "web" as const,
 *   actions: [{ type: "navigate" as const, url: "http://127.0.0.1/", added: true }, { type: "type" as const }],
 * };
 * if (overrideProblems(plan, ["0"]).length !== 0) throw new Error();
 * if (overrideProblems(plan, ["1"])[0]?.message !== "the plan has actions 0–0") throw new Error();
 * ```
 */
export function overrideProblems(
  plan: PlaybackPlan,
  keys: Iterable<string>,
): OverrideProblem[] {
  const numbers = sourceNumbers(plan.actions);
  const count = numbers.filter((n) => n !== undefined).length;
  const out: OverrideProblem[] = [];
  for (const key of keys) {
    const at = /^\d+$/.test(key) ? numbers.indexOf(Number(key)) : -1;
    if (at < 0) {
      out.push({
        key,
        message: count === 0 ? "the plan has no actions" : `the plan has actions 0–${count - 1}`,
      });
      continue;
    }
    const type = plan.actions[at]!.type;
    if (type !== "type") {
      out.push({ key, message: `action ${key} is a ${type}; only typing takes a value` });
    }
  }
  return out;
}
