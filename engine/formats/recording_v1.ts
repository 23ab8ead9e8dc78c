/**
 * `recording_v1`: the accessibility-tree recording of an agent run (`mode: agent`,
 * `decision` entries) or a human demonstration (`mode: human`, `human_action` entries), with
 * `ax_snapshot`, `action_result` and `navigation` entries on one timeline and a summary.
 * Mapped into session events and back.
 *
 * A snapshot is keyed on its own `schema_version`: `axtree_v1` (the extension's flat AX node
 * list), `cairn.chrome/v1` (Cairn's joined Chrome hierarchy, from Cairn's own recorder), or
 * `cairn.hierarchy/v1` (`{ format, text }`: any other hierarchy Cairn exports, e.g. Android XML).
 *
 * @module
 */
import { z } from "zod";
import type { ActionKind, EventData, NewEvent } from "../../events/mod.ts";
import type { HierarchyFormat } from "../screens/mod.ts";
import { HierarchyFormat as HierarchyFormatSchema } from "../screens/mod.ts";
import { CHROME_SCHEMA_VERSION, ChromeHierarchy } from "../screens/mod.ts";
import { isCdpAxTree, parseAxTree } from "../screens/mod.ts";
import { blobRefOf, type PendingBlob } from "./blob_ref.ts";
import { checkHierarchy } from "./check_screen.ts";
import { hierarchyMediaType } from "./detect_hierarchy.ts";
import { FormatError, zodToFormatError } from "../input/mod.ts";
import { IsoDateTime } from "./iso_date_time.ts";
import { projectCapture } from "../trail/mod.ts";
import { Coordinate } from "./screen_point.ts";

/** The format tag of a recording. */
export const RECORDING_FORMAT = "recording_v1";
/** Snapshot schema of Cairn's joined Chrome hierarchy (engine/screens/chrome_hierarchy.ts). */
export const CHROME_SNAPSHOT = CHROME_SCHEMA_VERSION;
/** Snapshot schema wrapping any other hierarchy as text. */
export const RAW_SNAPSHOT = "cairn.hierarchy/v1";

const TabId = z.union([z.number(), z.string()]).nullable().optional();
const Selectors = z.record(z.string(), z.string());

/** What a decision or a human action targets (the recording's target description fields). */
export const RecordingTarget = z.object({
  selector_type: z.string().nullable().optional(),
  ax_node_id: z.union([z.string(), z.number()]).nullable().optional(),
  role: z.string().nullable().optional(),
  name: z.string().nullable().optional(),
  /** DOM selectors Cairn's human recorder computed (testId, ariaLabel, id, cssPath, …). */
  selectors: Selectors.nullable().optional(),
  x: Coordinate.nullable().optional(),
  y: Coordinate.nullable().optional(),
}).loose();

/** One step the agent decided or the human performed. */
export const RecordingStep = z.object({
  step_id: z.union([z.string(), z.number()]).nullable().optional(),
  action_type: z.string(),
  target: RecordingTarget.nullable().optional(),
  value: z.union([z.string(), z.number(), z.boolean()]).nullable().optional(),
  timeout_ms: z.number().int().nonnegative().nullable().optional(),
  retries: z.number().int().nonnegative().nullable().optional(),
  x: Coordinate.nullable().optional(),
  y: Coordinate.nullable().optional(),
  selectors: Selectors.nullable().optional(),
  /** A `switch_tab` that opened a new tab (the person's Ctrl+T) rather than one already open. */
  new_tab: z.boolean().nullable().optional(),
}).loose();

const Snapshot = z.object({ schema_version: z.string().optional() }).loose();

const AxSnapshotEntry = z.object({
  t: IsoDateTime,
  kind: z.literal("ax_snapshot"),
  url: z.string().nullable().optional(),
  tab_id: TabId,
  snapshot: Snapshot,
}).loose();
const DecisionEntry = z.object({
  t: IsoDateTime,
  kind: z.literal("decision"),
  source: z.string().optional(),
  step: RecordingStep,
  confidence: z.number().nullable().optional(),
  notes: z.string().nullable().optional(),
  tab_id: TabId,
  url: z.string().nullable().optional(),
  /** When the person began the action (a committed value's first keystroke); `t` commits it. */
  started_at: IsoDateTime.nullable().optional(),
}).loose();
const HumanActionEntry = DecisionEntry.extend({ kind: z.literal("human_action") });
const ActionResultEntry = z.object({
  t: IsoDateTime,
  kind: z.literal("action_result"),
  source: z.string().optional(),
  step_id: z.union([z.string(), z.number()]),
  status: z.string(),
  error: z.string().nullable().optional(),
  duration_ms: z.number().nonnegative().nullable().optional(),
}).loose();
const NavigationEntry = z.object({
  t: IsoDateTime,
  kind: z.literal("navigation"),
  url: z.string(),
  from: z.string().nullable().optional(),
  reason: z.string().nullable().optional(),
  tab_id: TabId,
}).loose();

/** One timeline entry. */
export const TimelineEntry = z.discriminatedUnion("kind", [
  AxSnapshotEntry,
  DecisionEntry,
  HumanActionEntry,
  ActionResultEntry,
  NavigationEntry,
]);
export type TimelineEntry = z.infer<typeof TimelineEntry>;

const ENDED = ["completed", "failed", "clarification", "interrupted"] as const;

/** A whole `recording_v1` file. */
export const RecordingV1 = z.object({
  schema_version: z.literal(RECORDING_FORMAT),
  mode: z.enum(["agent", "human"]),
  id: z.union([z.string(), z.number()]).transform(String),
  created_at: IsoDateTime,
  ended_at: IsoDateTime.nullable().optional(),
  prompt: z.object({
    type: z.string().optional(),
    text: z.string().nullable().optional(),
    locale: z.string().nullable().optional(),
  }).loose().nullable().optional(),
  context: z.object({
    extension_version: z.string().nullable().optional(),
    ax_capture: z.object({ method: z.string().optional(), notes: z.string().optional() }).loose()
      .nullable().optional(),
  }).loose().nullable().optional(),
  timeline: z.array(TimelineEntry),
  summary: z.object({
    urls: z.array(z.string()),
    action_count: z.number().int().nonnegative(),
    ax_snapshot_count: z.number().int().nonnegative(),
    ended_reason: z.enum(ENDED),
  }).loose().nullable().optional(),
}).loose();
export type RecordingV1 = z.infer<typeof RecordingV1>;

/** Action types of `recording_v1` (and common aliases) → Cairn's action kinds. */
const ACTION_TYPES: Record<string, ActionKind> = {
  click: "tap",
  tap: "tap",
  double_click: "tap",
  // Chrome Recorder's name for a double click (recording_v1 has none); Cairn's recorder writes it
  doubleclick: "tap",
  type: "inputText",
  input: "inputText",
  input_text: "inputText",
  fill: "inputText",
  change: "inputText",
  select: "select",
  select_option: "select",
  check: "check",
  uncheck: "check",
  submit: "keyPress",
  key: "keyPress",
  keypress: "keyPress",
  key_press: "keyPress",
  press: "keyPress",
  navigate: "navigate",
  goto: "navigate",
  open_url: "navigate",
  scroll: "scroll",
  swipe: "swipe",
  back: "back",
  go_back: "back",
  reload: "reload",
  refresh: "reload",
  switch_tab: "switchTab",
  switchtab: "switchTab",
  wait: "wait",
  read: "readText",
  read_text: "readText",
  extract: "readText",
  assert_visible: "assertVisible",
  assert_text: "assertText",
  memory_set: "memorySet",
  memory_get: "memoryGet",
};

/** The action type written for each kind on export. */
const KIND_TO_TYPE: Record<ActionKind, string> = {
  tap: "click",
  inputText: "type",
  select: "select",
  check: "check",
  keyPress: "key_press",
  navigate: "navigate",
  scroll: "scroll",
  swipe: "swipe",
  back: "back",
  wait: "wait",
  reload: "reload",
  switchTab: "switch_tab",
  readText: "read_text",
  assertVisible: "assert_visible",
  assertText: "assert_text",
  memorySet: "memory_set",
  memoryGet: "memory_get",
};

const NAV_REASONS = new Set(["navigate", "load", "reload", "spa", "new_tab", "redirect", "back"]);
const NAV_ALIASES: Record<string, EventData<"NavigationOccurred">["reason"]> = {
  refresh: "reload",
  "new tab": "new_tab",
  newtab: "new_tab",
  history: "spa",
  pushstate: "spa",
  spa_navigation: "spa",
};
const DIRECTIONS = new Set(["up", "down", "left", "right"]);
const OK_STATUSES = new Set(["success", "ok", "succeeded", "passed"]);

/** Options of {@linkcode recordingToEvents}. */
export interface RecordingToEventsOptions {
  sessionId: string;
  file?: string;
}

/** Events of a recording and the snapshot blobs they reference. */
export interface RecordingImport {
  events: NewEvent[];
  blobs: PendingBlob[];
}

/** What a Chrome snapshot says of the page it was taken of, beside its nodes. */
const SnapshotView = ChromeHierarchy.pick({ viewport: true, devicePixelRatio: true, scroll: true });
type SnapshotView = z.infer<typeof SnapshotView>;

/**
 * A snapshot's blob and format: checked against its own schema (naming the field), then parsed
 * as `cairn optimize` will read it (`checkHierarchy`: Chrome children links, tree depth, the text
 * of a wrapped hierarchy). A Chrome hierarchy (`cairn.chrome/v1`, or wrapped as text) also gives
 * the viewport, device pixel ratio and scroll it was taken with.
 */
function snapshotScreen(
  snapshot: z.infer<typeof Snapshot>,
  path: string,
): { blob: PendingBlob; format: HierarchyFormat; view?: SnapshotView } {
  const { text, format, field } = snapshotText(snapshot, path);
  checkHierarchy(text, format, field);
  const view = format === "chrome"
    ? SnapshotView.safeParse(
      snapshot.schema_version === CHROME_SNAPSHOT ? snapshot : JSON.parse(text),
    )
    : undefined;
  return {
    blob: { bytes: new TextEncoder().encode(text), mediaType: hierarchyMediaType(format) },
    format,
    ...(view?.success ? { view: view.data } : {}),
  };
}

function snapshotText(
  snapshot: z.infer<typeof Snapshot>,
  path: string,
): { text: string; format: HierarchyFormat; field: string } {
  // A raw CDP getFullAXTree result has no schema_version: read as axtree_v1 (axtree.ts).
  const version = snapshot.schema_version ?? (isCdpAxTree(snapshot) ? "axtree_v1" : undefined);
  switch (version) {
    case "axtree_v1":
      try {
        parseAxTree(snapshot);
      } catch (err) {
        if (err instanceof FormatError) throw new FormatError(`${path}.${err.message}`, path);
        throw err;
      }
      return { text: JSON.stringify(snapshot), format: "axtree_v1", field: path };
    case CHROME_SNAPSHOT: {
      const chrome = ChromeHierarchy.safeParse(snapshot);
      if (!chrome.success) throw zodToFormatError(chrome.error, path);
      return { text: JSON.stringify(snapshot), format: "chrome", field: path };
    }
    case RAW_SNAPSHOT: {
      const format = HierarchyFormatSchema.safeParse(snapshot.format);
      if (!format.success) throw zodToFormatError(format.error, `${path}.format`);
      if (typeof snapshot.text !== "string") {
        throw new FormatError(`${path}.text: expected the hierarchy text`, `${path}.text`);
      }
      return { text: snapshot.text, format: format.data, field: `${path}.text` };
    }
    default:
      throw new FormatError(
        `${path}.schema_version: ${
          version === undefined ? "missing" : `unknown snapshot format ${JSON.stringify(version)}`
        } (expected axtree_v1, ${CHROME_SNAPSHOT} or ${RAW_SNAPSHOT}, or a raw CDP AX tree)`,
        `${path}.schema_version`,
      );
  }
}

/** The first URL the timeline names: a snapshot's, a navigation's or a navigate step's. */
function firstUrlOf(timeline: readonly TimelineEntry[]): string | undefined {
  for (const e of timeline) {
    if (e.kind === "ax_snapshot" && e.url) return e.url;
    if (e.kind === "navigation") return e.url;
    if (
      (e.kind === "decision" || e.kind === "human_action") &&
      ACTION_TYPES[e.step.action_type.toLowerCase()] === "navigate" &&
      typeof e.step.value === "string"
    ) return e.step.value;
  }
  return undefined;
}

function str(v: string | number | boolean | null | undefined): string | undefined {
  return v === null || v === undefined ? undefined : String(v);
}

/**
 * Parses a recording (the whole file is validated) and maps it into session events:
 * `SessionStarted` (its viewport and device pixel ratio the first Chrome snapshot's), then per
 * entry `ScreenCaptured` (ax_snapshot; a Chrome snapshot's viewport, device pixel ratio and
 * scroll with it), `ActionPerformed`
 * (decision / human_action), `ActionCompleted` (action_result), `NavigationOccurred`
 * (navigation), and `SessionEnded` with the summary's `ended_reason` (`interrupted` when the
 * file has an `ended_at` but no summary; none when it has neither: the run has not ended).
 * Entry times become `meta.recordedAt`.
 *
 * @param value the parsed JSON of the file
 * @param options the new session's id and the file name
 * @returns the events and the snapshot blobs
 * @throws {FormatError} naming the field (`timeline.3.step.action_type: …`)
 */
export function recordingToEvents(
  value: unknown,
  options: RecordingToEventsOptions,
): RecordingImport {
  const parsed = RecordingV1.safeParse(value);
  if (!parsed.success) throw zodToFormatError(parsed.error);
  const rec = parsed.data;
  const blobs: PendingBlob[] = [];
  const firstUrl = rec.summary?.urls[0] ?? firstUrlOf(rec.timeline);
  const extension = rec.context?.extension_version;
  const started: EventData<"SessionStarted"> = {
    sessionId: options.sessionId,
    mode: rec.mode,
    platform: "web",
    ...(rec.prompt?.text ? { prompt: rec.prompt.text } : {}),
    ...(firstUrl ? { url: firstUrl } : {}),
    ...(extension ? { drivers: { extension } } : {}),
    source: {
      format: RECORDING_FORMAT,
      id: rec.id,
      ...(options.file ? { file: options.file } : {}),
    },
  };
  const events: NewEvent[] = [
    { type: "SessionStarted", data: started, meta: { recordedAt: rec.created_at } },
  ];
  const actionIds = new Map<string, string>();
  let n = 0;
  rec.timeline.forEach((entry, i) => {
    const meta = { recordedAt: entry.t };
    const path = `timeline.${i}`;
    switch (entry.kind) {
      case "ax_snapshot": {
        const { blob, format, view } = snapshotScreen(entry.snapshot, `${path}.snapshot`);
        blobs.push(blob);
        if (view && started.viewport === undefined) {
          // the session's viewport is the one its first page was shown in
          started.viewport = view.viewport;
          started.devicePixelRatio = view.devicePixelRatio;
        }
        const data: EventData<"ScreenCaptured"> = {
          hierarchy: blobRefOf(blob),
          format,
          ...(entry.url ? { url: entry.url } : {}),
          ...(view ?? {}),
          ...(str(entry.tab_id) !== undefined ? { tabId: str(entry.tab_id)! } : {}),
        };
        events.push({ type: "ScreenCaptured", data, meta });
        break;
      }
      case "decision":
      case "human_action": {
        n++;
        const step = entry.step;
        const kind = ACTION_TYPES[step.action_type.toLowerCase()];
        if (!kind) {
          throw new FormatError(
            `${path}.step.action_type: unknown action type ${JSON.stringify(step.action_type)}`,
            `${path}.step.action_type`,
          );
        }
        const raw = str(step.step_id) ?? `a${n}`;
        let actionId = raw;
        for (let k = 2; [...actionIds.values()].includes(actionId); k++) actionId = `${raw}#${k}`;
        actionIds.set(raw, actionId);
        events.push({ type: "ActionPerformed", data: performedOf(entry, kind, actionId), meta });
        break;
      }
      case "action_result": {
        const actionId = actionIds.get(String(entry.step_id));
        if (actionId === undefined) {
          throw new FormatError(
            `${path}.step_id: no earlier decision or human_action has step_id ${
              JSON.stringify(entry.step_id)
            }`,
            `${path}.step_id`,
          );
        }
        const ok = OK_STATUSES.has(entry.status.toLowerCase());
        const error = entry.error ?? (ok ? undefined : entry.status);
        events.push({
          type: "ActionCompleted",
          data: {
            actionId,
            ok,
            durationMs: entry.duration_ms ?? 0,
            ...(error ? { error } : {}),
          },
          meta,
        });
        break;
      }
      case "navigation": {
        const r = (entry.reason ?? "navigate").toLowerCase();
        const reason = NAV_REASONS.has(r)
          ? r as EventData<"NavigationOccurred">["reason"]
          : NAV_ALIASES[r] ?? "navigate";
        events.push({
          type: "NavigationOccurred",
          data: {
            url: entry.url,
            reason,
            ...(entry.from ? { from: entry.from } : {}),
            ...(str(entry.tab_id) !== undefined ? { tabId: str(entry.tab_id)! } : {}),
          },
          meta,
        });
        break;
      }
    }
  });
  // with neither a summary nor an ended_at the run was still recording: it has not ended
  if (rec.summary || rec.ended_at) {
    events.push({
      type: "SessionEnded",
      data: { reason: rec.summary?.ended_reason ?? "interrupted" },
      meta: { recordedAt: rec.ended_at ?? rec.timeline.at(-1)?.t ?? rec.created_at },
    });
  }
  return { events, blobs };
}

function performedOf(
  entry: z.infer<typeof DecisionEntry> | z.infer<typeof HumanActionEntry>,
  kind: ActionKind,
  actionId: string,
): EventData<"ActionPerformed"> {
  const step = entry.step;
  const t = step.target ?? {};
  const value = str(step.value);
  const x = step.x ?? t.x;
  const y = step.y ?? t.y;
  const selectors = { ...(t.selectors ?? {}), ...(step.selectors ?? {}) };
  const target: NonNullable<EventData<"ActionPerformed">["target"]> = {
    ...(str(t.ax_node_id) !== undefined ? { axNodeId: str(t.ax_node_id)! } : {}),
    ...(t.role ? { role: t.role } : {}),
    ...(t.name ? { name: t.name } : {}),
    ...(Object.keys(selectors).length > 0 ? { selectors } : {}),
    ...(t.selector_type && t.selector_type !== "ax_node_id"
      ? { selector: { type: t.selector_type } }
      : {}),
  };
  const params: Record<string, unknown> = {};
  if (step.timeout_ms !== null && step.timeout_ms !== undefined) {
    params.timeout_ms = step.timeout_ms;
  }
  if (step.retries !== null && step.retries !== undefined) params.retries = step.retries;
  if (entry.confidence !== null && entry.confidence !== undefined) {
    params.confidence = entry.confidence;
  }
  if (entry.notes) params.notes = entry.notes;
  // a tab switch that opened the tab (Ctrl+T); a committed value's first keystroke
  if (step.new_tab === true) params.newTab = true;
  if (typeof entry.started_at === "string") params.startedAt = entry.started_at;
  const lower = step.action_type.toLowerCase();
  const data: EventData<"ActionPerformed"> = {
    actionId,
    kind,
    ...(x !== null && x !== undefined && y !== null && y !== undefined ? { point: { x, y } } : {}),
    // the kind's own name (what export writes for an action without a raw tool name) says no
    // more than the kind: it is no raw tool name
    ...(step.action_type !== KIND_TO_TYPE[kind] ? { toolName: step.action_type } : {}),
    ...(Object.keys(params).length > 0 ? { toolParams: params } : {}),
    ...(Object.keys(target).length > 0 ? { target } : {}),
    source: entry.kind === "human_action" ? "human" : "agent",
    ...(str(entry.tab_id) !== undefined ? { tabId: str(entry.tab_id)! } : {}),
  };
  if (value !== undefined) {
    switch (kind) {
      case "inputText":
        data.text = value;
        break;
      case "keyPress":
        data.key = value;
        break;
      case "navigate":
      case "reload":
      case "switchTab":
        data.url = value;
        break;
      case "scroll":
      case "swipe":
        if (DIRECTIONS.has(value)) data.direction = value as "up";
        else data.value = value;
        break;
      case "check":
        data.checked = value !== "false";
        break;
      case "assertText":
      case "assertVisible":
        data.expected = value;
        break;
      default:
        data.value = value;
    }
  } else if (kind === "keyPress" && lower === "submit") {
    data.key = "Enter";
  } else if (kind === "check") {
    data.checked = lower !== "uncheck";
  }
  return data;
}

// ---- export ----

/** An event as the exporter reads it: type, data and (when stored) `meta.recordedAt`. */
export type RecordingEventInput = NewEvent | (NewEvent & { meta: { recordedAt: string } });

/** Options of {@linkcode eventsToRecording}. */
export interface EventsToRecordingOptions {
  /** Blob bytes by sha256 for every hierarchy the events reference. */
  blobs: ReadonlyMap<string, Uint8Array>;
  /** The time to write where an event has none (default: the epoch). */
  fallbackTime?: string;
}

function valueOf(d: EventData<"ActionPerformed">): string | null {
  switch (d.kind) {
    case "inputText":
      return d.text ?? d.value ?? null;
    case "keyPress":
      return d.key ?? d.value ?? null;
    case "navigate":
    case "reload":
    case "switchTab":
      return d.url ?? d.value ?? null;
    case "scroll":
    case "swipe":
      return d.direction ?? d.value ?? null;
    case "check":
      return d.checked === undefined ? d.value ?? null : String(d.checked);
    case "assertText":
    case "assertVisible":
      return d.expected ?? d.value ?? null;
    default:
      return d.value ?? null;
  }
}

function tabOf(tabId: string | undefined): number | string | undefined {
  if (tabId === undefined) return undefined;
  return /^\d+$/.test(tabId) ? Number(tabId) : tabId;
}

/**
 * Writes a session's events as a `recording_v1` object. Screens become `ax_snapshot` entries
 * (an `axtree_v1` or Chrome snapshot as its JSON object when that reads back to the stored
 * bytes; any other, and any other format, wrapped as
 * `{ schema_version: "cairn.hierarchy/v1", format, text }`); actions become `decision`
 * (agent) or `human_action` (human) entries; steps, memory and action fields the format has
 * no place for are dropped.
 *
 * @param events the session's events in order (starting with `SessionStarted`)
 * @param options the blob bytes
 * @returns the recording
 * @throws {TypeError} when the events do not start with `SessionStarted` or a blob is missing
 */
export function eventsToRecording(
  events: readonly RecordingEventInput[],
  options: EventsToRecordingOptions,
): RecordingV1 {
  const view = projectCapture(events);
  const fallback = options.fallbackTime ?? new Date(0).toISOString();
  const s = view.session.data;
  const mode = s.mode === "human" ? "human" : "agent";
  const timeline: TimelineEntry[] = [];
  const urls: string[] = [];
  const addUrl = (u: string | undefined) => {
    if (u && !urls.includes(u)) urls.push(u);
  };
  addUrl(s.url);
  const dec = new TextDecoder();
  for (const item of view.timeline) {
    switch (item.kind) {
      case "screen": {
        const d = item.screen.data;
        const bytes = options.blobs.get(d.hierarchy.hash);
        if (!bytes) throw new TypeError(`Blob ${d.hierarchy.hash} is missing`);
        const snapshot = snapshotOf(d.format, dec.decode(bytes));
        const tab = tabOf(d.tabId);
        timeline.push({
          t: item.screen.at ?? fallback,
          kind: "ax_snapshot",
          ...(d.url !== undefined ? { url: d.url } : {}),
          ...(tab !== undefined ? { tab_id: tab } : {}),
          snapshot,
        });
        addUrl(d.url);
        break;
      }
      case "action": {
        timeline.push(decisionOf(item.action.performed.data, item.action.performed.at ?? fallback));
        if (item.action.performed.data.kind === "navigate") {
          addUrl(item.action.performed.data.url);
        }
        break;
      }
      case "result": {
        const r = item.action.completed!;
        timeline.push({
          t: r.at ?? fallback,
          kind: "action_result",
          source: item.action.performed.data.source,
          step_id: r.data.actionId,
          status: r.data.ok ? "success" : "error",
          error: r.data.error ?? null,
          duration_ms: r.data.durationMs,
        });
        break;
      }
      case "navigation": {
        const d = item.navigation.data;
        const tab = tabOf(d.tabId);
        timeline.push({
          t: item.navigation.at ?? fallback,
          kind: "navigation",
          url: d.url,
          reason: d.reason,
          ...(d.from !== undefined ? { from: d.from } : {}),
          ...(tab !== undefined ? { tab_id: tab } : {}),
        });
        addUrl(d.url);
        break;
      }
      case "step_started":
      case "step_ended":
      case "memory":
        break; // recording_v1 has no steps or memory: documented as dropped
      default: {
        const never: never = item;
        throw new TypeError(`Unknown timeline item ${(never as { kind: string }).kind}`);
      }
    }
  }
  const ended = view.ended;
  return {
    schema_version: RECORDING_FORMAT,
    mode,
    id: s.source?.id ?? s.sessionId,
    created_at: view.session.at ?? fallback,
    ended_at: ended ? ended.at ?? fallback : null,
    prompt: {
      type: mode === "human" ? "human_example_prompt" : "agent_transcript",
      text: s.prompt ?? "",
    },
    context: {
      extension_version: s.drivers?.extension ?? null,
      ax_capture: { method: "Accessibility.getFullAXTree", notes: "exported by cairn" },
    },
    timeline,
    ...(ended
      ? {
        summary: {
          urls,
          action_count: view.actions.length,
          ax_snapshot_count: timeline.filter((e) => e.kind === "ax_snapshot").length,
          ended_reason: ended.data.reason,
        },
      }
      : {}),
  };
}

/**
 * The `action_type` an exported step gets: the raw tool name when a recording reads it as the
 * same action kind, else the first name of the kind.
 *
 * @param kind the action's kind
 * @param toolName the raw tool name, if any
 * @returns the action type
 * @example
 * ```ts
 * if (recordingActionType("tap", "double_click") !== "double_click") throw new Error();
 * if (recordingActionType("tap", "doubleClick") !== "doubleClick") throw new Error();
 * if (recordingActionType("keyPress", "keyDown") !== "key_press") throw new Error();
 * ```
 */
export function recordingActionType(kind: ActionKind, toolName?: string): string {
  return toolName && ACTION_TYPES[toolName.toLowerCase()] === kind ? toolName : KIND_TO_TYPE[kind];
}

/**
 * The `snapshot` of a stored hierarchy: an AX or Chrome hierarchy as its JSON object when that
 * reads back to the same bytes (ingest stores the object as `JSON.stringify` writes it), any
 * other — and one written otherwise, e.g. pretty-printed in a capture file — wrapped as text.
 */
function snapshotOf(format: HierarchyFormat, text: string): Record<string, unknown> {
  if (format === "axtree_v1" || format === "chrome") {
    const value = JSON.parse(text);
    if (JSON.stringify(value) === text) return value;
  }
  return { schema_version: RAW_SNAPSHOT, format, text };
}

function decisionOf(d: EventData<"ActionPerformed">, t: string): TimelineEntry {
  const type = recordingActionType(d.kind, d.toolName);
  const params = d.toolParams ?? {};
  const target: z.infer<typeof RecordingTarget> = {
    ...(typeof d.target?.selector?.type === "string"
      ? { selector_type: d.target.selector.type }
      : d.target?.axNodeId !== undefined
      ? { selector_type: "ax_node_id" }
      : {}),
    ...(d.target?.axNodeId !== undefined ? { ax_node_id: d.target.axNodeId } : {}),
    ...(d.target?.role !== undefined ? { role: d.target.role } : {}),
    ...(d.target?.name !== undefined ? { name: d.target.name } : {}),
    ...(d.target?.selectors ? { selectors: d.target.selectors } : {}),
  };
  const step: z.infer<typeof RecordingStep> = {
    step_id: d.actionId,
    action_type: type,
    target,
    value: valueOf(d),
    ...(typeof params.timeout_ms === "number" ? { timeout_ms: params.timeout_ms } : {}),
    ...(typeof params.retries === "number" ? { retries: params.retries } : {}),
    ...(d.point ? { x: d.point.x, y: d.point.y } : {}),
    ...(params.newTab === true ? { new_tab: true } : {}),
  };
  const tab = tabOf(d.tabId);
  return {
    t,
    kind: d.source === "human" ? "human_action" : "decision",
    source: d.source,
    step,
    ...(typeof params.confidence === "number" ? { confidence: params.confidence } : {}),
    ...(typeof params.notes === "string" ? { notes: params.notes } : {}),
    ...(typeof params.startedAt === "string" ? { started_at: params.startedAt } : {}),
    ...(tab !== undefined ? { tab_id: tab } : {}),
  };
}

/**
 * The file name a `recording_v1` recording gets: `vw-ax-agent-{trace_id}-{yyyyMMdd-HHmmss}.json`
 * or `vw-ax-human-{session_id}-{yyyyMMdd-HHmmss}.json`, with the creation time in UTC.
 *
 * @param rec the recording (its mode, id and created_at)
 * @returns the file name, with characters outside `[A-Za-z0-9._-]` in the id replaced by `_`
 * @example
 * ```ts
 * const n = recordingFileName({ mode: "agent", id: "t1", created_at: "2025-12-19T12:00:00Z" });
 * if (n !== "vw-ax-agent-t1-20251219-120000.json") throw new Error(n);
 * ```
 */
export function recordingFileName(
  rec: Pick<RecordingV1, "mode" | "id" | "created_at">,
): string {
  const d = new Date(rec.created_at);
  const p = (v: number) => String(v).padStart(2, "0");
  const stamp = `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-` +
    `${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
  return `vw-ax-${rec.mode}-${rec.id.replace(/[^A-Za-z0-9._-]/g, "_")}-${stamp}.json`;
}
