/**
 * The capture a validation compares with, indexed by step and action; where each replayed
 * action came from in the trail; and what of the trail a replay cannot prove (secrets without a
 * value) or must re-point (placeholder origins).
 *
 * @module
 */
import type { EventStore } from "../../events/mod.ts";
import type { EventData, StoredEvent } from "../../events/mod.ts";
import { rebaseUrl, trailToPlan } from "../../engine/playback/mod.ts";
import { projectSessionTrail } from "../../engine/optimizer/mod.ts";
import type { Screen, ScreenTable } from "../../engine/screens/mod.ts";
import type { Selector, SelectorMode, Trail } from "../../engine/trail/mod.ts";
import type { CapturedAction } from "../../engine/validation/mod.ts";

/** The capture, indexed. */
export interface CaptureIndex {
  /** By step index, by recording action index. */
  actions: Map<number, CapturedAction[]>;
  /** The NL text of each captured step, by index. */
  steps: Map<number, string>;
  trail: Trail;
}

export async function indexCapture(
  store: EventStore,
  sessionId: string,
  mode: SelectorMode | undefined,
  heuristics: string | undefined,
): Promise<CaptureIndex> {
  const screens = new Map<string, Screen>();
  const tables = new Map<string, ScreenTable>();
  const projection = await projectSessionTrail(store, sessionId, {
    screens,
    tables,
    ...(mode ? { mode } : {}),
    ...(heuristics ? { heuristics } : {}),
  });
  const events: StoredEvent[] = [];
  for await (const e of store.readStream(`session-${sessionId}`)) events.push(e);
  const performed = events.filter((e) => e.type === "ActionPerformed");
  const completed = new Map<string, EventData<"ActionCompleted">>();
  for (const e of events) if (e.type === "ActionCompleted") completed.set(e.data.actionId, e.data);
  const actions = new Map<number, CapturedAction[]>();
  const steps = new Map<number, string>();
  for (const x of projection.explain) {
    steps.set(x.step - 1, x.stepText);
    if (!x.written) continue;
    const list = actions.get(x.step - 1) ?? [];
    const src = performed[x.action - 1];
    const done = src?.type === "ActionPerformed" ? completed.get(src.data.actionId) : undefined;
    const c: CapturedAction = { kind: x.written.kind };
    if (x.target) {
      const screen = screens.get(x.target.screen);
      const table = tables.get(x.target.screen);
      if (screen && table) {
        c.screen = screen;
        c.node = table.node(x.target.node);
      }
    }
    if (done) {
      c.ok = done.ok;
      if (done.value !== undefined) c.value = done.value;
    }
    if (x.written.storeAs) c.storeAs = x.written.storeAs;
    list.push(c);
    actions.set(x.step - 1, list);
  }
  return { actions, steps, trail: projection.trail };
}

export function selectorsOf(trail: Trail, step: number, action: number): Selector[] {
  const a = trail.trail[step]?.recording?.[action];
  if (!a) return [];
  return [...(a.selector ? [a.selector] : []), ...(a.selectors ?? [])];
}

/** For each plan action: its step and the recording action it came from. */
export function planOrigins(trail: Trail): ({ step: number; action: number } | undefined)[] {
  const out: ({ step: number; action: number } | undefined)[] = [];
  const plan = trailToPlan(trail);
  const cursor = new Map<number, { action: number; left: number }>();
  for (const a of plan.actions) {
    if (a.stepIndex === undefined || a.type === "agent_step") {
      out.push(undefined);
      continue;
    }
    const rec = trail.trail[a.stepIndex]?.recording ?? [];
    let c = cursor.get(a.stepIndex);
    if (!c || c.left === 0) {
      const next = c ? c.action + 1 : 0;
      c = { action: next, left: rec[next]?.repeat ?? 1 };
    }
    c.left--;
    cursor.set(a.stepIndex, c);
    out.push({ step: a.stepIndex, action: c.action });
  }
  return out;
}

/** The memory keys the trail keeps as `null` (secrets) and `memory` gives no value for. */
export function missingSecrets(
  trail: Trail,
  memory: Readonly<Record<string, string>> = {},
): string[] {
  return Object.entries(trail.config.memory ?? {})
    .filter(([k, v]) => v === null && !Object.hasOwn(memory, k))
    .map(([k]) => k);
}

/** The first of `keys` a recording action's templates read, if any. */
export function usedKey(action: unknown, keys: readonly string[]): string | undefined {
  if (!action || keys.length === 0) return undefined;
  const templates = JSON.stringify(action).match(/\{\{.*?\}\}/g) ?? [];
  return keys.find((k) =>
    templates.some((t) => new RegExp(`\\b${k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`).test(t))
  );
}

/**
 * A trail whose navigates to a placeholder origin (`https://localhost:<test-port>/…`, recorded
 * by DevTools' own flows) go to `base` instead: validation replays them there (`rebasePlan`), so
 * the trail it writes names where it was proven, and replays without `--url`. A navigate to a
 * real origin stays as recorded (only `config.url` says where the trail was validated).
 */
export function withPlaceholdersRebased(trail: Trail, base: URL): Trail {
  let changed = false;
  const steps = trail.trail.map((step) => {
    if (!step.recording?.some((a) => a.kind === "navigate" && isPlaceholderUrl(a.url))) {
      return step;
    }
    changed = true;
    return {
      ...step,
      recording: step.recording.map((a) =>
        a.kind === "navigate" && isPlaceholderUrl(a.url)
          ? { ...a, url: rebaseUrl(a.url!, base) }
          : a
      ),
    };
  });
  return changed ? { ...trail, trail: steps } : trail;
}

/** A url that cannot be parsed and holds no template: a placeholder host or port. */
function isPlaceholderUrl(url: string | undefined): boolean {
  return url !== undefined && !url.includes("{{") && !URL.canParse(url);
}
