/**
 * The optimizer's entry: a capture's events → a trail, through the passes in docs/architecture.md's
 * order (resolve → selectors → modes → slots → generalization → expressions → concision).
 * Pure and deterministic: the same events, screens and options give the same trail.
 *
 * @module
 */
import type { NewEvent } from "../../events/mod.ts";
import { RecentMap, ScreenTable, type TableEngine } from "../screens/mod.ts";
import type { Selector, SelectorMode, Trail, TrailAction, TrailStep } from "../trail/mod.ts";
import { concisionPass } from "./concision.ts";
import {
  type Draft,
  type DraftAction,
  foldCapture,
  type PassContext,
  type ScreenSource,
} from "./draft.ts";

export type { ScreenSource } from "./draft.ts";
import { expressionsPass } from "./expressions.ts";
import { generalizePass } from "./generalize.ts";
import { checkHeuristics, HEURISTICS_VERSION, heuristicsLevel } from "../trail/mod.ts";
import { modesPass } from "./modes.ts";
import { rawTrail } from "./raw.ts";
import { resolvePass } from "./resolve.ts";
import { actionSelectors, assertedTextPass } from "./selectors.ts";
import { slotsPass } from "./slots.ts";

/** Options of {@linkcode optimize}. */
export interface OptimizeOptions {
  /** Selector mode of the whole trail (default adaptive). */
  mode?: SelectorMode;
  /** Per-step overrides, by step index (0-based). */
  stepModes?: Readonly<Record<number, SelectorMode>>;
  /** Heuristics version (default the current, `v1`). */
  heuristics?: string;
  /** Trail id written to `config.id` (default the session id). */
  id?: string;
  /** A cache of screen tables by blob hash, shared across calls (e.g. re-projections). */
  tables?: Map<string, ScreenTable>;
  /** Which engine answers the table queries (default auto: WASM when built). */
  tableEngine?: TableEngine;
}

/** What the optimizer decided for one captured action. */
export interface ExplainEntry {
  /** 1-based step number. */
  step: number;
  stepText: string;
  /** 1-based action number in the capture. */
  action: number;
  kind: string;
  /** The action as written to the trail, or why it was dropped. */
  outcome: string;
  /** Chosen selector, rejected candidates with reasons, slot, pattern, expression. */
  lines: string[];
  /** The action as written, when it was kept. */
  written?: TrailAction;
  /** The node the action targets: screen blob hash and node index (document order). */
  target?: { screen: string; node: number };
}

/** The optimizer's output. */
export interface OptimizeResult {
  trail: Trail;
  explain: ExplainEntry[];
  warnings: string[];
  heuristics: string;
  mode: SelectorMode;
}

/**
 * How many decoded screens a projection holds at once when no cache is shared with it: its passes
 * go through the actions in order, each looking at its own screen and its neighbours', so a few
 * dozen are enough, and a capture of any length holds about as much as a short one.
 */
export const SCREENS_HELD = 32;

/**
 * Projects a capture into a trail.
 *
 * @param events the session stream's events, in order
 * @param screens parsed screens by hierarchy blob hash
 * @param options mode, heuristics version, id, table cache
 * @returns the trail, the explanation per action and warnings
 * @throws {RangeError} on an unknown heuristics version
 * @throws {TypeError} when the events hold no SessionStarted
 */
export function optimize(
  events: readonly NewEvent[],
  screens: ScreenSource,
  options: OptimizeOptions = {},
): OptimizeResult {
  const heuristics = checkHeuristics(options.heuristics ?? HEURISTICS_VERSION);
  const mode = options.mode ?? "adaptive";
  const tables = options.tables ?? new RecentMap<string, ScreenTable>(SCREENS_HELD);
  const ctx: PassContext = {
    table(hash) {
      let t = tables.get(hash);
      if (t === undefined) {
        const s = screens.get(hash);
        if (!s) return undefined;
        t = ScreenTable.from(s, { engine: options.tableEngine ?? "auto" });
        tables.set(hash, t);
      }
      return t;
    },
    screen: (hash) => screens.get(hash),
  };
  const model = foldCapture(events, screens);
  // an empty capture makes an empty trail: said, so a user does not take it for a success
  const empty = model.actions.length === 0
    ? ["the capture holds no action: the trail has no step to replay"]
    : [];
  if (heuristics === "v0") {
    const raw = rawTrail(model);
    const trail: Trail = {
      config: { id: options.id ?? model.sessionId, platform: model.platform, heuristics },
      trail: raw.steps,
    };
    if (model.url !== undefined) trail.config.url = model.url;
    return { trail, explain: raw.explain, warnings: empty, heuristics, mode };
  }
  let draft: Draft = {
    model,
    mode,
    level: heuristicsLevel(heuristics),
    steps: [],
    memory: {},
    captured: [],
    inputs: [],
    warnings: empty,
  };
  // each action's node resolved and its selectors ranked in one go, on its screen: a long capture's
  // screens are read one after the other, each once, not once per pass
  const select = actionSelectors(draft, ctx);
  const modeOf = (i: number) => options.stepModes?.[i];
  draft = resolvePass(draft, ctx, (a, i) => {
    const m = modeOf(i);
    return select(a, { text: model.steps[i]!, ...(m !== undefined ? { selectorMode: m } : {}) });
  });
  draft.steps.forEach((s, i) => {
    const m = modeOf(i);
    if (m !== undefined) s.selectorMode = m;
  });
  draft = modesPass(draft);
  draft = slotsPass(draft, ctx);
  draft = generalizePass(draft);
  draft = expressionsPass(draft);
  draft = assertedTextPass(draft);
  draft = concisionPass(draft, ctx);
  return toResult(draft, heuristics, options.id ?? model.sessionId);
}

function toResult(draft: Draft, heuristics: string, id: string): OptimizeResult {
  const explain: ExplainEntry[] = [];
  const steps: TrailStep[] = draft.steps.map((s, si) => {
    const recording: TrailAction[] = [];
    for (const a of s.actions) {
      const action = a.drop ? undefined : toAction(a);
      if (action) recording.push(action);
      explain.push({
        step: si + 1,
        stepText: s.text,
        action: a.src.seq + 1,
        kind: a.src.data.kind,
        outcome: a.drop
          ? `dropped: ${a.drop}`
          : s.recordable === false
          ? "step not recordable"
          : describe(action!),
        lines: a.notes,
        ...(action && s.recordable !== false ? { written: action } : {}),
        ...(a.node !== undefined && a.src.screen !== undefined
          ? { target: { screen: a.src.screen, node: a.node } }
          : {}),
      });
    }
    const out: TrailStep = { step: s.text };
    if (s.selectorMode !== undefined) out.selectorMode = s.selectorMode;
    if (s.recordable === false) out.recordable = false;
    else out.recording = recording;
    return out;
  });
  const config: Trail["config"] = {
    id,
    platform: draft.model.platform,
    selectorMode: draft.mode,
    heuristics,
  };
  if (draft.model.url !== undefined) config.url = draft.model.url;
  if (Object.keys(draft.memory).length > 0) config.memory = draft.memory;
  return {
    trail: { config, trail: steps },
    explain,
    warnings: draft.warnings,
    heuristics,
    mode: draft.mode,
  };
}

function toAction(a: DraftAction): TrailAction {
  const out: TrailAction = { kind: a.kind };
  if (a.selectors) out.selectors = a.selectors.map(copySel);
  else if (a.selector) out.selector = copySel(a.selector);
  if (a.kind === "inputText" && a.text !== undefined) out.text = a.text;
  if (a.url !== undefined && (a.kind === "navigate" || a.kind === "switchTab")) out.url = a.url;
  if (a.kind === "switchTab" && a.src.data.toolParams?.newTab === true) out.newTab = true;
  if (a.key !== undefined && a.kind === "keyPress") out.key = a.key;
  if (a.direction !== undefined) out.direction = a.direction;
  if (a.value !== undefined && (a.kind === "select" || a.kind === "memorySet")) out.value = a.value;
  if (a.checked !== undefined && a.kind === "check") out.checked = a.checked;
  if (a.storeAs !== undefined && (a.kind === "readText" || a.kind === "memorySet")) {
    out.storeAs = a.storeAs;
  }
  if (a.kind === "assertText") {
    if (a.matches !== undefined) out.matches = a.matches;
    else if (a.equals !== undefined) out.equals = a.equals;
  }
  if (a.repeat !== undefined && a.repeat > 1) out.repeat = a.repeat;
  return out;
}

function copySel(s: Selector): Selector {
  return JSON.parse(JSON.stringify(s)) as Selector;
}

function describe(a: TrailAction): string {
  const { kind, ...rest } = a;
  return `${kind} ${JSON.stringify(rest)}`;
}
