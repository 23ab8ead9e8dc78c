/**
 * Time travel: the state of a capture session at any global position — the step, the latest
 * screen, memory, the last action and its result, the url and counts — folded by a projection
 * from the event log. In-memory checkpoints every {@linkcode CHECKPOINT_EVERY} events of a
 * stream mean a query folds only the events since the nearest checkpoint.
 *
 * @module
 */
import type { EventStore, StreamInfo } from "../../events/mod.ts";
import { NotFoundError } from "../../events/mod.ts";
import type { BlobRef, EventData, StoredEvent } from "../../events/mod.ts";
import { UnreadableEventError } from "../../events/mod.ts";

/** A projection: a pure fold of events into a state. Changing `evolve` bumps `version`. */
export interface Projection<S> {
  name: string;
  version: number;
  initialState: S;
  evolve(state: S, event: StoredEvent): S;
}

/** The latest screen of a session. */
export interface ScreenState {
  position: number;
  /** The hierarchy captured (null: a playback action's screenshot with no hierarchy stored). */
  hierarchy: BlobRef | null;
  format: string;
  screenshot: BlobRef | null;
  url: string | null;
}

/** The last action and, once it completed, its result. */
export interface ActionState {
  position: number;
  action: EventData<"ActionPerformed">;
  result: EventData<"ActionCompleted"> | null;
}

/** A playback's last action: how it was resolved and, once it completed, its result. */
export interface PlaybackActionState {
  position: number;
  /** Position in the playback's plan, from 0. */
  index: number;
  resolved: EventData<"PlaybackActionResolved"> | null;
  result: EventData<"PlaybackActionCompleted"> | null;
}

/** A capture session's (or playback's) state after some position. */
export interface SessionState {
  /** Position of the last event folded (0 before the first). */
  position: number;
  streamVersion: number;
  /** `recordedAt` of the last event folded. */
  recordedAt: string | null;
  session: EventData<"SessionStarted"> | null;
  step: { index: number; text: string; ended: boolean } | null;
  screen: ScreenState | null;
  memory: Record<string, string>;
  lastAction: ActionState | null;
  /** Playback streams: the last action replayed (`lastAction` stays null there). */
  lastPlaybackAction: PlaybackActionState | null;
  /** Playback streams: how it started and ended. */
  playback: EventData<"PlaybackStarted"> | null;
  playbackEnded: EventData<"PlaybackCompleted"> | null;
  url: string | null;
  ended: EventData<"SessionEnded"> | null;
  counts: { events: number; actions: number; screens: number; failures: number };
}

/** Events per stream between two checkpoints. */
export const CHECKPOINT_EVERY = 256;
/** Streams whose checkpoints are kept per store (the least recently queried dropped first). */
export const MAX_CACHED_STREAMS = 64;

const INITIAL: SessionState = {
  position: 0,
  streamVersion: 0,
  recordedAt: null,
  session: null,
  step: null,
  screen: null,
  memory: {},
  lastAction: null,
  lastPlaybackAction: null,
  playback: null,
  playbackEnded: null,
  url: null,
  ended: null,
  counts: { events: 0, actions: 0, screens: 0, failures: 0 },
};

/**
 * Folds one event into a session state (pure; returns a new state).
 *
 * @param state the state before
 * @param e the event
 * @returns the state after
 */
export function evolveSession(state: SessionState, e: StoredEvent): SessionState {
  const base = {
    ...state,
    position: e.position,
    streamVersion: e.streamVersion,
    recordedAt: e.meta.recordedAt,
    counts: { ...state.counts, events: state.counts.events + 1 },
  };
  switch (e.type) {
    case "SessionStarted":
      return {
        ...base,
        session: e.data,
        memory: { ...(e.data.memory ?? {}) },
        url: e.data.url ?? base.url,
      };
    case "StepStarted":
      return { ...base, step: { index: e.data.index, text: e.data.text, ended: false } };
    case "StepEnded":
      return base.step && base.step.index === e.data.index
        ? { ...base, step: { ...base.step, ended: true } }
        : base;
    case "ScreenCaptured":
      return {
        ...base,
        screen: {
          position: e.position,
          hierarchy: e.data.hierarchy,
          format: e.data.format,
          screenshot: e.data.screenshot ?? null,
          url: e.data.url ?? null,
        },
        url: e.data.url ?? base.url,
        counts: { ...base.counts, screens: base.counts.screens + 1 },
      };
    case "ActionPerformed":
      return {
        ...base,
        lastAction: { position: e.position, action: e.data, result: null },
        counts: { ...base.counts, actions: base.counts.actions + 1 },
      };
    case "ActionCompleted": {
      const failures = base.counts.failures + (e.data.ok ? 0 : 1);
      const la = base.lastAction;
      return {
        ...base,
        lastAction: la && la.action.actionId === e.data.actionId ? { ...la, result: e.data } : la,
        counts: { ...base.counts, failures },
      };
    }
    case "MemorySnapshotted":
      return { ...base, memory: { ...e.data.memory } };
    case "NavigationOccurred":
      return { ...base, url: e.data.url };
    case "SessionEnded":
      return { ...base, ended: e.data };
    case "PlaybackStarted":
      return { ...base, playback: e.data };
    case "PlaybackActionResolved": {
      const last = base.lastPlaybackAction;
      // a re-resolution of the same action (a retry) replaces the earlier one
      const fresh = !last || last.index !== e.data.index || last.result !== null;
      return {
        ...base,
        lastPlaybackAction: {
          position: e.position,
          index: e.data.index,
          resolved: e.data,
          result: null,
        },
        counts: { ...base.counts, actions: base.counts.actions + (fresh ? 1 : 0) },
      };
    }
    case "PlaybackActionCompleted": {
      const d = e.data;
      const last = base.lastPlaybackAction;
      const same = last !== null && last.index === d.index && last.result === null;
      const shot = d.screenshot;
      return {
        ...base,
        lastPlaybackAction: {
          position: same ? last.position : e.position,
          index: d.index,
          resolved: same ? last.resolved : null,
          result: d,
        },
        screen: shot
          ? {
            position: e.position,
            hierarchy: same ? last.resolved?.screen ?? null : null,
            format: "auto", // the resolution screen names no format: detected from its text
            screenshot: shot,
            url: d.pageUrl ?? null,
          }
          : base.screen,
        url: d.pageUrl ?? base.url,
        counts: {
          ...base.counts,
          actions: base.counts.actions + (same ? 0 : 1),
          screens: base.counts.screens + (shot ? 1 : 0),
          failures: base.counts.failures + (d.status === "failed" ? 1 : 0),
        },
      };
    }
    case "PlaybackCompleted":
      return { ...base, playbackEnded: e.data };
    case "ValidationStarted":
    case "ValidationIterationCompleted":
    case "ValidationCompleted":
      return base;
    default: {
      const never: never = e;
      throw new Error(`Unknown event type ${(never as { type: string }).type}`);
    }
  }
}

/** The session state projection. */
export const sessionStateProjection: Projection<SessionState> = {
  name: "session-state",
  version: 2,
  initialState: INITIAL,
  evolve: evolveSession,
};

interface Checkpoints<S> {
  /** Position of the stream's first event when the checkpoints were taken (identity check). */
  firstPosition: number;
  /** `states[k]`: the state after stream version `k * CHECKPOINT_EVERY`. */
  states: { state: S; position: number }[];
}

const caches = new WeakMap<EventStore, Map<string, Checkpoints<unknown>>>();

/** Options of {@linkcode foldAt}. */
export interface FoldAtOptions {
  /** The stream to fold. */
  streamId: string;
  /** Fold events with position ≤ this. Default: all (the latest state). */
  position?: number;
}

/**
 * Folds a stream with a projection up to a global position, starting from the nearest
 * in-memory checkpoint at or before it and recording new checkpoints on the way.
 *
 * @param store the event store
 * @param projection the projection
 * @param options the stream and the position
 * @returns the projected state
 * @throws {NotFoundError} when the stream has no events
 * @example
 * ```ts
 * import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
 * const store = SqliteEventStore.open(":memory:");
 * await store.append("session-a", [{ type: "StepStarted", data: { index: 0, text: "Open" } }]);
 * const s = await foldAt(store, sessionStateProjection, { streamId: "session-a" });
 * if (s.counts.events !== 1) throw new Error();
 * store.close();
 * ```
 */
export async function foldAt<S>(
  store: EventStore,
  projection: Projection<S>,
  options: FoldAtOptions,
): Promise<S> {
  const { streamId, position = Infinity } = options;
  let first: StoredEvent | undefined;
  for await (const e of store.readStream(streamId, { limit: 1 })) first = e;
  if (!first) throw new NotFoundError(`No stream ${streamId}`);
  let perStore = caches.get(store);
  if (!perStore) caches.set(store, perStore = new Map());
  const key = `${projection.name}@${projection.version}:${streamId}`;
  let cp = perStore.get(key) as Checkpoints<S> | undefined;
  if (!cp || cp.firstPosition !== first.position) {
    cp = {
      firstPosition: first.position,
      states: [{ state: projection.initialState, position: 0 }],
    };
  }
  // least recently used goes first: re-insert on every use, drop the oldest beyond the cap
  perStore.delete(key);
  perStore.set(key, cp as Checkpoints<unknown>);
  if (perStore.size > MAX_CACHED_STREAMS) perStore.delete(perStore.keys().next().value!);
  // nearest checkpoint at or before `position`
  let k = cp.states.length - 1;
  while (k > 0 && cp.states[k]!.position > position) k--;
  let state = cp.states[k]!.state;
  let lastPosition = cp.states[k]!.position;
  let version = k * CHECKPOINT_EVERY;
  for (;;) {
    let n = 0;
    let passed = false;
    for await (
      const e of store.readStream(streamId, { from: version + 1, limit: CHECKPOINT_EVERY })
    ) {
      n++;
      if (e.position > position) {
        passed = true;
        break;
      }
      state = projection.evolve(state, e);
      version = e.streamVersion;
      lastPosition = e.position;
    }
    if (!passed && n === CHECKPOINT_EVERY && version % CHECKPOINT_EVERY === 0) {
      const idx = version / CHECKPOINT_EVERY;
      if (idx === cp.states.length) cp.states.push({ state, position: lastPosition });
    }
    if (passed || n < CHECKPOINT_EVERY) return state;
  }
}

/**
 * The state of a session stream at a global position.
 *
 * @param store the event store
 * @param streamId the stream (`session-<id>`)
 * @param position the position (default: the latest)
 * @returns the step, latest screen, memory, last action and result, url and counts
 * @throws {NotFoundError} when the stream has no events
 * @example
 * ```ts
 * import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
 * const store = SqliteEventStore.open(":memory:");
 * await store.append("session-a", [{ type: "StepStarted", data: { index: 0, text: "Open" } }]);
 * const s = await stateAt(store, "session-a", 1);
 * if (s.step?.text !== "Open") throw new Error();
 * store.close();
 * ```
 */
export function stateAt(
  store: EventStore,
  streamId: string,
  position: number = Infinity,
): Promise<SessionState> {
  return foldAt(store, sessionStateProjection, { streamId, position });
}

/**
 * The stream of a session id: `abc` → `session-abc`; ids that already name a stream
 * (`session-…`, `playback-…`, `validation-…`) are kept.
 *
 * @param id a session id or stream id
 * @returns the stream id
 * @example
 * ```ts
 * if (streamIdOf("abc") !== "session-abc" || streamIdOf("playback-1") !== "playback-1") throw new Error();
 * ```
 */
export function streamIdOf(id: string): string {
  return /^(session|playback|validation)-/.test(id) ? id : `session-${id}`;
}

/** A capture session in a list: its stream, and how it started and ended. */
export interface SessionSummary extends StreamInfo {
  /** The id without `session-`. */
  sessionId: string;
  /** Its first event's data, when that is `SessionStarted`. */
  started: EventData<"SessionStarted"> | null;
  /** Its last event's data, when that is `SessionEnded`. */
  ended: EventData<"SessionEnded"> | null;
}

/**
 * The capture sessions in the log (streams `session-*`), oldest first, each with its first and
 * last event read (two events a session, whatever its length).
 *
 * @param store the event store
 * @param onUnreadable when given, a session whose first or last stored event cannot be read
 *   ({@linkcode UnreadableEventError}: not JSON, an unknown schema version…) is left out and
 *   handed to it, the others listed; without it the error is thrown
 * @returns one summary a session
 */
export async function listSessions(
  store: EventStore,
  onUnreadable?: (streamId: string, err: UnreadableEventError) => void,
): Promise<SessionSummary[]> {
  const out: SessionSummary[] = [];
  for (const s of await store.streams("session-")) {
    let first: StoredEvent | undefined;
    let last: StoredEvent | undefined;
    try {
      for await (const e of store.readStream(s.streamId, { limit: 1 })) first = e;
      for await (const e of store.readStream(s.streamId, { from: s.version, limit: 1 })) last = e;
    } catch (err) {
      if (!onUnreadable || !(err instanceof UnreadableEventError)) throw err;
      onUnreadable(s.streamId, err);
      continue;
    }
    out.push({
      sessionId: s.streamId.slice("session-".length),
      ...s,
      started: first?.type === "SessionStarted" ? first.data : null,
      ended: last?.type === "SessionEnded" ? last.data : null,
    });
  }
  return out;
}

/**
 * One line describing an event, for timelines. Steps are numbered from 1, as everywhere a person
 * reads them (blaze, `optimize --explain`, the validation report); `StepStarted.index` counts
 * from 0. A playback action keeps its index, the `#` of `cairn replay`'s report.
 *
 * @param e the event
 * @returns a short summary
 * @example
 * ```ts
 * const line = summarizeEvent({ position: 1, streamId: "s", streamVersion: 1, type: "StepStarted",
 *   schemaVersion: 1, data: { index: 0, text: "Open" }, meta: { recordedAt: "" } });
 * if (line !== "step 1: Open") throw new Error(line);
 * ```
 */
export function summarizeEvent(e: StoredEvent): string {
  switch (e.type) {
    case "SessionStarted":
      return `${e.data.mode} session on ${e.data.platform}${
        e.data.url ?? e.data.app ? ` (${e.data.url ?? e.data.app})` : ""
      }${e.data.prompt ? `: ${clip(e.data.prompt)}` : ""}`;
    case "StepStarted":
      return `step ${e.data.index + 1}: ${clip(e.data.text)}`;
    case "StepEnded":
      return `step ${e.data.index + 1} ended${e.data.ok === false ? " (failed)" : ""}`;
    case "ScreenCaptured":
      return `screen ${e.data.format} ${short(e.data.hierarchy.hash)}${
        e.data.screenshot ? ` + screenshot ${short(e.data.screenshot.hash)}` : ""
      }${e.data.url ? ` at ${e.data.url}` : ""}`;
    case "ActionPerformed": {
      const d = e.data;
      const where = d.point ? ` at (${d.point.x}, ${d.point.y})` : "";
      const what = d.text ?? d.value ?? d.url ?? d.key ?? d.expected;
      const sel = d.target?.selector;
      const target = d.target?.ref ?? d.target?.name ??
        (sel
          ? Object.entries(sel).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(",")
          : undefined);
      return `${d.kind}${target ? ` ${target}` : ""}${where}${
        what !== undefined ? ` ${JSON.stringify(clip(what))}` : ""
      } [${d.source}]`;
    }
    case "ActionCompleted":
      return `${
        e.data.ok ? "ok" : `failed: ${clip(e.data.error ?? "error")}`
      } in ${e.data.durationMs} ms${
        e.data.value !== undefined ? ` → ${JSON.stringify(clip(e.data.value))}` : ""
      }`;
    case "MemorySnapshotted": {
      const keys = Object.keys(e.data.memory);
      return `memory: ${keys.length} key${keys.length === 1 ? "" : "s"}${
        keys.length ? ` (${clip(keys.join(", "))})` : ""
      }`;
    }
    case "NavigationOccurred":
      return `${e.data.reason} → ${e.data.url}`;
    case "SessionEnded":
      return `ended: ${e.data.reason}${e.data.error ? ` (${clip(e.data.error)})` : ""}`;
    case "PlaybackStarted":
      return `playback of ${e.data.source.kind}, ${e.data.actionsTotal} actions`;
    case "PlaybackActionResolved":
      return `action ${e.data.index} resolved by ${e.data.strategy}${
        e.data.healed ? " (healed)" : ""
      }`;
    case "PlaybackActionCompleted":
      return `action ${e.data.index} ${e.data.action}: ${e.data.status}${
        e.data.errorCode ? ` (${e.data.errorCode})` : ""
      }`;
    case "PlaybackCompleted":
      return `playback ${e.data.status} in ${e.data.durationMs} ms${
        e.data.video?.path
          ? `; video ${e.data.video.path}`
          : e.data.video?.error
          ? `; ${e.data.video.error}`
          : ""
      }`;
    case "ValidationStarted":
      return `validation of ${e.data.sessionId} (${e.data.policy})`;
    case "ValidationIterationCompleted":
      return `iteration ${e.data.iteration}: ${e.data.passed ? "passed" : "failed"}`;
    case "ValidationCompleted":
      return `validation ${e.data.status} after ${e.data.iterations} iterations`;
    default: {
      const never: never = e;
      throw new Error(`Unknown event type ${(never as { type: string }).type}`);
    }
  }
}

/**
 * Text on one line (runs of white space as one space), cut to `max` characters with an ellipsis.
 *
 * @param s the text
 * @param max the most characters kept
 * @returns the line
 */
export function clip(s: string, max = 60): string {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > max ? one.slice(0, max - 1) + "…" : one;
}

function short(hash: string): string {
  return hash.slice(0, 12);
}

/** The kinds of run a stream records: `<kind>-<id>`. */
export const RUN_KINDS = ["session", "playback", "validation"] as const;
/** A kind of run. */
export type RunKind = typeof RUN_KINDS[number];

/** An id that starts several runs' ids: the caller is asked for more of it. */
export class AmbiguousIdError extends Error {
  /**
   * @param given the id as written
   * @param streams the streams it starts (all of them)
   */
  constructor(readonly given: string, readonly streams: string[]) {
    const names = streams.slice(0, 3).join(", ");
    const kinds = new Set(streams.map((s) => s.slice(0, s.indexOf("-"))));
    const noun = kinds.size === 1 ? `${[...kinds][0]}s` : "runs";
    super(
      `${JSON.stringify(given)} is the start of ${streams.length} ${noun} (${names}${
        streams.length > 3 ? ", …" : ""
      }): give more of the id`,
    );
    this.name = "AmbiguousIdError";
  }
}

/**
 * The one rule for the id of a session, playback or validation, on the command line and over
 * HTTP: the id as printed (`7f3a9c…`, `pb-1248081a-c33`, `val-…`), with its stream's prefix
 * (`session-…`, `playback-pb-…`, `validation-…`), or, as git takes a short hash, the start of
 * exactly one of them. An exact stream wins over a longer one it starts.
 *
 * @param store the event store
 * @param given the id as written
 * @param kinds the kinds of run it may name (default: all three)
 * @returns the stream id, or null when it names none
 * @throws {AmbiguousIdError} when it starts several runs' ids and names none exactly
 * @example
 * ```ts
 * import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
 * const store = SqliteEventStore.open(":memory:");
 * await store.append("playback-pb-12ab", [{ type: "StepStarted", data: { index: 0, text: "x" } }]);
 * if (await matchRun(store, "pb-12") !== "playback-pb-12ab") throw new Error();
 * store.close();
 * ```
 */
export async function matchRun(
  store: EventStore,
  given: string,
  kinds: readonly RunKind[] = RUN_KINDS,
): Promise<string | null> {
  const prefixes = new Set<string>();
  for (const k of kinds) {
    prefixes.add(given.startsWith(`${k}-`) ? given : `${k}-${given}`);
  }
  const found = new Set<string>();
  for (const p of prefixes) for (const s of await store.streams(p)) found.add(s.streamId);
  const exact = [...prefixes].filter((p) => found.has(p));
  if (exact.length === 1) return exact[0]!;
  if (exact.length > 1) throw new AmbiguousIdError(given, exact);
  if (found.size <= 1) return [...found][0] ?? null;
  throw new AmbiguousIdError(given, [...found]);
}

/** A run in the list of `cairn history`: a session, playback or validation. */
export interface RunSummary {
  kind: RunKind;
  /** The id as printed (the stream id without `<kind>-`). */
  id: string;
  streamId: string;
  /** Events in the stream. */
  events: number;
  createdAt: string;
  /** One line: what ran (a session's mode, platform and prompt; a playback's source). */
  what: string;
  /** How it ended, or null while it runs (or when it never said). */
  outcome: string | null;
}

/**
 * Every run in the log — sessions, playbacks and validations — oldest first, each from its first
 * and last events.
 *
 * @param store the event store
 * @param onUnreadable as {@linkcode listSessions}
 * @returns one summary a run
 */
export async function listRuns(
  store: EventStore,
  onUnreadable?: (streamId: string, err: UnreadableEventError) => void,
): Promise<RunSummary[]> {
  const out: RunSummary[] = [];
  for (const kind of RUN_KINDS) {
    for (const s of await store.streams(`${kind}-`)) {
      let first: StoredEvent | undefined;
      let last: StoredEvent | undefined;
      try {
        for await (const e of store.readStream(s.streamId, { limit: 1 })) first = e;
        for await (const e of store.readStream(s.streamId, { from: s.version, limit: 1 })) {
          last = e;
        }
      } catch (err) {
        if (!onUnreadable || !(err instanceof UnreadableEventError)) throw err;
        onUnreadable(s.streamId, err);
        continue;
      }
      let what = "";
      if (first?.type === "SessionStarted") {
        const st = first.data;
        what = `${st.mode} ${st.platform}${st.prompt ? ` — ${clip(st.prompt)}` : ""}`;
      } else if (first?.type === "PlaybackStarted") {
        const d = first.data;
        what = `playback ${d.platform} of ${d.source.kind}${
          d.source.file ? ` ${d.source.file}` : d.source.sessionId ? ` ${d.source.sessionId}` : ""
        }, ${d.actionsTotal} actions`;
      } else if (first?.type === "ValidationStarted") {
        what = `validation of ${first.data.sessionId} (${first.data.policy})`;
      }
      let outcome: string | null = null;
      if (last?.type === "SessionEnded") outcome = last.data.reason;
      else if (last?.type === "PlaybackCompleted") outcome = last.data.status;
      else if (last?.type === "ValidationCompleted") outcome = last.data.status;
      out.push({
        kind,
        id: s.streamId.slice(kind.length + 1),
        streamId: s.streamId,
        events: s.version,
        createdAt: s.createdAt,
        what,
        outcome,
      });
    }
  }
  return out.sort((a, b) => a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0);
}
