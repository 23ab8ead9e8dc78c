/**
 * The two edits validation makes to a trail: refined selectors for one action, and
 * `recordable: false` for the steps that could not be stabilised (the NL step is kept; the
 * agent handles it on every run). Both return a new trail; the input is not changed.
 *
 * @module
 */
import type { Selector, Trail } from "../trail/mod.ts";

/**
 * Replaces an action's selectors: one selector, or a first selector and its fallbacks.
 *
 * @param trail the trail
 * @param step the step index (0-based)
 * @param action the action index in the step's recording (0-based)
 * @param selectors the selectors, best first (at least one)
 * @returns the new trail
 * @throws {RangeError} when the step or action does not exist or no selector is given
 * @example
 * ```ts
 * const t = withSelectors({ config: {}, trail: [{ step: "Go", recording: [{ kind: "tap", selector: { id: "x-1" } }] }] }, 0, 0, [{ role: "button", name: "Go" }]);
 * if (t.trail[0]!.recording![0]!.selector!.name !== "Go") throw new Error();
 * ```
 */
export function withSelectors(
  trail: Trail,
  step: number,
  action: number,
  selectors: readonly Selector[],
): Trail {
  const s = trail.trail[step];
  const a = s?.recording?.[action];
  if (!s || !a) throw new RangeError(`No action ${action + 1} in step ${step + 1}`);
  if (selectors.length === 0) throw new RangeError("At least one selector is needed");
  const { selector: _s, selectors: _l, ...rest } = a;
  const next = selectors.length === 1
    ? { ...rest, selector: selectors[0]! }
    : { ...rest, selectors: [...selectors] };
  const recording = s.recording!.map((x, i) => i === action ? next : x);
  return { ...trail, trail: trail.trail.map((x, i) => i === step ? { ...x, recording } : x) };
}

/**
 * Marks steps `recordable: false` and drops their recordings.
 *
 * @param trail the trail
 * @param steps the step indices (0-based)
 * @returns the new trail
 * @example
 * ```ts
 * const t = flagUnrecordable({ config: {}, trail: [{ step: "Pick any slot", recording: [{ kind: "tap", selector: { text: "10:00" } }] }] }, [0]);
 * if (t.trail[0]!.recordable !== false || t.trail[0]!.recording) throw new Error();
 * ```
 */
export function flagUnrecordable(trail: Trail, steps: Iterable<number>): Trail {
  const set = new Set(steps);
  return {
    ...trail,
    trail: trail.trail.map((s, i) => {
      if (!set.has(i)) return s;
      const { recording: _r, ...rest } = s;
      return { ...rest, recordable: false };
    }),
  };
}
