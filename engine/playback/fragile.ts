/**
 * Fragile-selector statistics: a projection over every playback in the log. Each
 * cascade level an action tried counts once for its concrete selector string: a success when
 * it matched exactly one visible element, a failure otherwise. A selector is fragile when it
 * failed in more than half of its tries over at least two playbacks.
 *
 * @module
 */
import type { StoredEvent } from "../../events/mod.ts";

/** One selector's record. */
export interface SelectorStats {
  selector: string;
  strategy: string;
  failures: number;
  total: number;
  /** failures / total. */
  failureRate: number;
  /** Distinct playbacks that tried it. */
  runs: number;
  fragile: boolean;
}

/** The state folded: per selector key, counts and the playbacks seen. */
export interface FragileState {
  selectors: Map<
    string,
    { strategy: string; selector: string; failures: number; total: number; runs: Set<string> }
  >;
}

/** Above this failure rate a selector is fragile. */
export const FRAGILE_RATE = 0.5;
/** …given at least this many playbacks tried it. */
export const FRAGILE_MIN_RUNS = 2;

/**
 * Folds one event (anything but `PlaybackActionResolved` leaves the state as it is).
 *
 * @param state the counts so far (mutated and returned: the fold owns it)
 * @param event any stored event
 * @returns the state
 */
export function evolveFragile(state: FragileState, event: StoredEvent): FragileState {
  if (event.type !== "PlaybackActionResolved") return state;
  for (const t of event.data.tried ?? []) {
    if (!t.selector) continue;
    const key = `${t.strategy}\u0000${t.selector}`;
    let s = state.selectors.get(key);
    if (!s) {
      s = { strategy: t.strategy, selector: t.selector, failures: 0, total: 0, runs: new Set() };
      state.selectors.set(key, s);
    }
    s.total += 1;
    if (t.matches !== 1) s.failures += 1;
    s.runs.add(event.streamId);
  }
  return state;
}

/** The projection: `{ name, version, initialState, evolve }`. */
export const fragileSelectorsProjection = {
  name: "fragile_selectors",
  version: 1,
  initialState: (): FragileState => ({ selectors: new Map() }),
  evolve: evolveFragile,
} as const;

/**
 * Folds events (the whole log or only playback streams) into per-selector statistics.
 *
 * @param events stored events in position order
 * @returns every selector tried, most failing first
 */
export async function fragileSelectors(
  events: AsyncIterable<StoredEvent> | Iterable<StoredEvent>,
): Promise<SelectorStats[]> {
  let state = fragileSelectorsProjection.initialState();
  for await (const e of events) state = evolveFragile(state, e);
  return [...state.selectors.values()].map((s) => {
    const failureRate = s.total === 0 ? 0 : s.failures / s.total;
    return {
      selector: s.selector,
      strategy: s.strategy,
      failures: s.failures,
      total: s.total,
      failureRate: Math.round(failureRate * 1000) / 1000,
      runs: s.runs.size,
      fragile: failureRate > FRAGILE_RATE && s.runs.size >= FRAGILE_MIN_RUNS,
    };
  }).sort((a, b) => b.failureRate - a.failureRate || b.total - a.total);
}
