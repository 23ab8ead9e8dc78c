/**
 * Cairn's capture file `cairn.capture/v1`: the raw capture of an agent or human run
 * (the raw capture format, with the memory after each action), one entry per action, and its
 * mapping into the events of `events/schemas.ts` and back.
 *
 * The field list is documented in `docs/capture.md`; `docs/capture.schema.json` is generated
 * from {@linkcode CaptureV1} by `scripts/gen_schema.ts`.
 *
 * @module
 */
import { z } from "zod";
import {
  ActionKind,
  type BlobRef,
  type EventData,
  HandledDialog,
  type NewEvent,
} from "../../events/mod.ts";
import { HierarchyFormat, Platform } from "../screens/mod.ts";
import { projectCapture, type ProjectedAction } from "../trail/mod.ts";
import { encodeBase64 } from "./base64.ts";
import { Coordinate } from "./screen_point.ts";
import { IsoDateTime, LATEST_TIME } from "./iso_date_time.ts";

/** The format tag of a capture file. */
export const CAPTURE_FORMAT = "cairn.capture/v1";

const Scalar = z.union([z.string(), z.number(), z.boolean()]);
/** A memory map: values are strings (numbers and booleans are read as their text). */
const Memory = z.record(z.string(), Scalar).describe(
  "Memory variables by name; numbers and booleans are read as their text",
);
const StringMap = z.record(z.string(), z.string());
/** A point of a screen: each coordinate finite and within Chromium's layout size (screen_point.ts). */
const Point = z.strictObject({ x: Coordinate, y: Coordinate });
const Size = z.strictObject({ width: z.number().positive(), height: z.number().positive() });
/** ISO 8601 date-time or epoch milliseconds. */
const Timestamp = z.union([
  IsoDateTime,
  z.number().nonnegative().max(
    LATEST_TIME,
    `expected epoch milliseconds from 0 to ${LATEST_TIME} (9999-12-31T23:59:59.999Z)`,
  ),
]).describe("ISO 8601 date-time with a time zone, or epoch milliseconds");

/** A hierarchy given in a file next to the capture (resolved against the capture's folder). */
export const HierarchyFile = z.strictObject({
  file: z.string().min(1).describe("Path relative to the capture file's folder"),
});
export type HierarchyFile = z.infer<typeof HierarchyFile>;

/** A view hierarchy: raw text (XML or JSON), a JSON object, or a file reference. */
export const ViewHierarchy = z.union([
  z.string().min(1),
  HierarchyFile,
  z.record(z.string(), z.unknown()),
  z.array(z.unknown()),
]).describe("Raw hierarchy text, a JSON hierarchy, or { file } relative to the capture");
export type ViewHierarchy = z.infer<typeof ViewHierarchy>;

/** What the agent or person named as the target at run time (evidence, never trusted). */
export const CaptureTarget = z.strictObject({
  ref: z.string().optional(),
  role: z.string().optional(),
  name: z.string().optional(),
  selectors: StringMap.optional().describe(
    "DOM selectors a recorder computed (testId, ariaLabel, id, cssPath, …)",
  ),
  axNodeId: z.string().optional(),
});

/** The fields of an action's screen besides its hierarchy, screenshot and page URL. */
const SCREEN_FIELDS = ["pageTabId", "viewport", "devicePixelRatio", "scroll"] as const;

/** The fields of an action's result, which an action with `noResult` cannot have. */
const RESULT_FIELDS = ["successful", "error", "durationMs", "dialogs"] as const;

/** One action of a capture. */
export const CaptureAction = z.strictObject({
  id: z.string().min(1).optional().describe("Action id; generated from the index when absent"),
  action: ActionKind,
  coordinates: Point.optional().describe("Where the action hit, in the screen's pixel space"),
  to: Point.optional().describe("Swipe end point"),
  viewHierarchy: ViewHierarchy.optional(),
  format: z.union([HierarchyFormat, z.literal("auto")]).optional().describe(
    "Format of viewHierarchy; detected when absent or auto",
  ),
  screenshot: z.string().min(1).optional().describe(
    "Screenshot path relative to the capture file, or a data: URI",
  ),
  pageUrl: z.string().optional().describe("Web: the page URL when the screen was captured"),
  pageTabId: z.string().optional().describe(
    "Web: the tab the screen was captured in, when it is not tabId",
  ),
  viewport: Size.optional().describe("The viewport when the screen was captured"),
  devicePixelRatio: z.number().positive().optional().describe(
    "The device pixel ratio when the screen was captured",
  ),
  scroll: Point.optional().describe("The scroll offset when the screen was captured"),
  nlStep: z.string().optional().describe("The natural-language step the action belongs to"),
  memoryState: Memory.optional().describe("The full memory map after the action"),
  memoryWrittenBy: StringMap.optional().describe("Memory key → tool that last wrote it"),
  timestamp: Timestamp.optional(),
  source: z.enum(["agent", "human"]).optional().describe("Who acted; default from header mode"),
  text: z.string().optional().describe("inputText: the text typed"),
  value: z.string().optional().describe(
    "select/memorySet: the value set; readText/memoryGet: the value read",
  ),
  key: z.string().optional().describe("keyPress: the key"),
  url: z.string().optional().describe("navigate: the URL"),
  direction: z.enum(["up", "down", "left", "right"]).optional().describe("swipe/scroll"),
  expected: z.string().optional().describe("assertText/assertVisible: the expected text"),
  storeAs: z.string().optional().describe("readText/memorySet: the memory key written"),
  checked: z.boolean().optional().describe("check: the state set"),
  toolName: z.string().optional().describe("The raw tool name as executed"),
  toolParams: z.record(z.string(), z.unknown()).optional().describe("Raw tool params"),
  successful: z.boolean().optional().describe("Whether the action succeeded (default true)"),
  noResult: z.literal(true).optional().describe(
    "The run recorded no result for this action (a Chrome Recorder step): no successful, " +
      "error, durationMs or dialogs",
  ),
  error: z.string().optional().describe("Error message of a failed action"),
  durationMs: z.number().nonnegative().optional(),
  dialogs: z.array(z.strictObject(HandledDialog.shape)).optional().describe(
    "Web: JavaScript dialogs the browser answered during the action, oldest first",
  ),
  runtimeSelector: z.union([z.string(), StringMap]).optional().describe(
    "The selector the agent used at run time (may be wrong); a string means { text }",
  ),
  target: CaptureTarget.optional(),
  tabId: z.string().optional(),
}).refine((a) => a.screenshot === undefined || a.viewHierarchy !== undefined, {
  message: "screenshot needs a viewHierarchy in the same action",
  path: ["screenshot"],
}).refine((a) => a.viewHierarchy !== undefined || SCREEN_FIELDS.every((k) => a[k] === undefined), {
  message: `${SCREEN_FIELDS.join(", ")} describe the action's screen: they need a viewHierarchy`,
  path: ["viewHierarchy"],
}).refine((a) => !a.noResult || RESULT_FIELDS.every((k) => a[k] === undefined), {
  message: `an action with no result has no ${RESULT_FIELDS.join(", ")}`,
  path: ["noResult"],
});
export type CaptureAction = z.infer<typeof CaptureAction>;

/** A whole capture file: header and actions. */
export const CaptureV1 = z.strictObject({
  format: z.literal(CAPTURE_FORMAT),
  platform: Platform,
  mode: z.enum(["agent", "human", "import"]).optional().describe("Who drove (default agent)"),
  prompt: z.string().optional(),
  systemPrompt: z.string().optional(),
  app: z.string().optional(),
  url: z.string().optional(),
  device: z.string().optional(),
  viewport: Size.optional(),
  devicePixelRatio: z.number().positive().optional(),
  drivers: StringMap.optional(),
  memory: Memory.optional().describe("Memory at the start (input slots)"),
  memoryWrittenBy: StringMap.optional().describe(
    "Memory key → tool that wrote it, for every action",
  ),
  startedAt: Timestamp.optional(),
  endedAt: Timestamp.optional(),
  ended: z.strictObject({
    reason: z.enum(["completed", "failed", "clarification", "interrupted"]),
    error: z.string().optional(),
  }).nullable().optional().describe(
    "How the run ended (default completed); null: it has not ended (its last step is still open)",
  ),
  actions: z.array(CaptureAction),
}).refine((c) => c.ended !== null || c.endedAt === undefined, {
  message: "a run that has not ended (ended: null) has no endedAt",
  path: ["endedAt"],
});
export type CaptureV1 = z.infer<typeof CaptureV1>;

/** A screen resolved for one action: the stored hierarchy blob and its format. */
export interface ResolvedScreen {
  hierarchy: BlobRef;
  format: HierarchyFormat;
  screenshot?: BlobRef;
}

/** Options of {@linkcode captureToEvents}. */
export interface CaptureToEventsOptions {
  sessionId: string;
  /** The screen of each action, by action index (undefined when the action has none). */
  blobs: readonly (ResolvedScreen | undefined)[];
  /** The file the capture came from (kept in `SessionStarted.source`). */
  file?: string;
}

function memoryOf(m: Record<string, string | number | boolean>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) out[k] = String(v);
  return out;
}

function isoOf(t: string | number | undefined): string | undefined {
  if (t === undefined) return undefined;
  return new Date(t).toISOString();
}

function withMeta(event: NewEvent, at: string | undefined): NewEvent {
  return at === undefined ? event : { ...event, meta: { recordedAt: at } };
}

/** Copies the defined values of `keys` from `from` (exactOptionalPropertyTypes-safe). */
function pick<T extends object, K extends keyof T>(
  from: T,
  keys: readonly K[],
): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
}

/**
 * Fields a capture action and its `ActionPerformed` event share under one name, copied as they
 * are both ways (import and export name the same list, so the round trip cannot drift). `value`
 * goes with them except on reads, whose value is the result.
 */
const ACTION_FIELDS = [
  "to",
  "text",
  "key",
  "direction",
  "url",
  "expected",
  "storeAs",
  "checked",
  "toolName",
  "toolParams",
  "tabId",
] as const;

const READ_KINDS = new Set<string>(["readText", "memoryGet"]);

/**
 * Maps a parsed capture into the events of one session, in order: `SessionStarted`, then per
 * action `StepEnded`/`StepStarted` when `nlStep` changes, `ScreenCaptured` (when the action
 * has a hierarchy), `ActionPerformed`, `ActionCompleted` (unless the action has `noResult`),
 * `MemorySnapshotted` (when the action has a `memoryState`), and finally `StepEnded` and
 * `SessionEnded` — neither when `ended` is null (a run that has not ended). Pure: blobs arrive
 * resolved.
 *
 * @param capture a parsed capture
 * @param options the session id and the resolved screen of each action
 * @returns the events to append to `session-<sessionId>`
 * @example
 * ```ts
 * const events = captureToEvents(
 *   { format: "cairn.capture/v1", platform: "web", actions: [{ action: "navigate", url: "https://a.test/" }] },
 *   { sessionId: "s1", blobs: [] },
 * );
 * if (events.map((e) => e.type).join() !== "SessionStarted,ActionPerformed,ActionCompleted,SessionEnded") throw new Error();
 * ```
 */
export function captureToEvents(capture: CaptureV1, options: CaptureToEventsOptions): NewEvent[] {
  const mode = capture.mode ?? "agent";
  const started: EventData<"SessionStarted"> = {
    sessionId: options.sessionId,
    mode,
    platform: capture.platform,
    ...pick(capture, [
      "prompt",
      "systemPrompt",
      "app",
      "url",
      "device",
      "viewport",
      "devicePixelRatio",
      "drivers",
    ]),
    ...(capture.memory ? { memory: memoryOf(capture.memory) } : {}),
    source: { format: CAPTURE_FORMAT, ...(options.file ? { file: options.file } : {}) },
  };
  // Events without a time of their own take the nearest earlier one, so a capture with
  // timestamps yields a stream on its own clock.
  let lastAt = isoOf(capture.startedAt ?? capture.actions[0]?.timestamp);
  const events: NewEvent[] = [withMeta({ type: "SessionStarted", data: started }, lastAt)];
  let step: { index: number; text: string; ok: boolean } | undefined;
  let nextStep = 0;
  capture.actions.forEach((a, i) => {
    const at = isoOf(a.timestamp) ?? lastAt;
    if (a.nlStep !== undefined && a.nlStep !== step?.text) {
      if (step) {
        events.push(
          withMeta({ type: "StepEnded", data: { index: step.index, ok: step.ok } }, lastAt),
        );
      }
      step = { index: nextStep++, text: a.nlStep, ok: true };
      events.push(
        withMeta({ type: "StepStarted", data: { index: step.index, text: a.nlStep } }, at),
      );
    }
    const screen = options.blobs[i];
    const tabId = a.pageTabId ?? a.tabId; // the screen's tab
    if (a.viewHierarchy !== undefined) {
      if (!screen) throw new TypeError(`Capture action ${i} has a viewHierarchy but no blob`);
      const data: EventData<"ScreenCaptured"> = {
        hierarchy: screen.hierarchy,
        format: screen.format,
        ...(screen.screenshot ? { screenshot: screen.screenshot } : {}),
        ...(a.pageUrl !== undefined ? { url: a.pageUrl } : {}),
        ...pick(a, ["viewport", "devicePixelRatio", "scroll"]),
        ...(tabId !== undefined ? { tabId } : {}),
      };
      events.push(withMeta({ type: "ScreenCaptured", data }, at));
    }
    const actionId = a.id ?? `a${i + 1}`;
    // a read's value is its result: with no result it stays on the action
    const reads = READ_KINDS.has(a.action) && !a.noResult;
    const target: EventData<"ActionPerformed">["target"] = {
      ...(a.target ?? {}),
      ...(a.runtimeSelector !== undefined
        ? {
          selector: typeof a.runtimeSelector === "string"
            ? { text: a.runtimeSelector }
            : a.runtimeSelector,
        }
        : {}),
    };
    const performed: EventData<"ActionPerformed"> = {
      actionId,
      kind: a.action,
      ...(a.coordinates ? { point: a.coordinates } : {}),
      ...pick(a, ACTION_FIELDS),
      ...(a.value !== undefined && !reads ? { value: a.value } : {}),
      ...(Object.keys(target).length > 0 ? { target } : {}),
      source: a.source ?? (mode === "human" ? "human" : "agent"),
      ...(step ? { stepIndex: step.index } : {}),
    };
    events.push(withMeta({ type: "ActionPerformed", data: performed }, at));
    if (!a.noResult) {
      const ok = a.successful ?? a.error === undefined;
      if (step && !ok) step.ok = false;
      events.push(withMeta({
        type: "ActionCompleted",
        data: {
          actionId,
          ok,
          durationMs: a.durationMs ?? 0,
          ...(a.error !== undefined ? { error: a.error } : {}),
          ...(a.value !== undefined && reads ? { value: a.value } : {}),
          ...(a.dialogs !== undefined ? { dialogs: a.dialogs } : {}),
        },
      }, at));
    }
    if (a.memoryState) {
      const writtenBy = { ...capture.memoryWrittenBy, ...a.memoryWrittenBy };
      // an empty map given is kept (a blaze snapshot of a memory no tool wrote yet)
      const given = capture.memoryWrittenBy !== undefined || a.memoryWrittenBy !== undefined;
      events.push(withMeta({
        type: "MemorySnapshotted",
        data: { memory: memoryOf(a.memoryState), ...(given ? { writtenBy } : {}) },
      }, at));
    }
    lastAt = at;
  });
  // a run that has not ended keeps its last step open, as a live session does
  if (capture.ended === null) return events;
  if (step) {
    events.push(withMeta({ type: "StepEnded", data: { index: step.index, ok: step.ok } }, lastAt));
  }
  events.push(withMeta({
    type: "SessionEnded",
    data: {
      reason: capture.ended?.reason ?? "completed",
      ...(capture.ended?.error !== undefined ? { error: capture.ended.error } : {}),
    },
  }, isoOf(capture.endedAt) ?? lastAt));
  return events;
}

/** An event as {@linkcode eventsToCapture} reads it: a new or a stored event. */
export type CaptureEventInput = NewEvent | (NewEvent & { meta: { recordedAt: string } });

/** Options of {@linkcode eventsToCapture}. */
export interface EventsToCaptureOptions {
  /** Blob bytes by sha256, for every hierarchy and screenshot the events reference. */
  blobs: ReadonlyMap<string, Uint8Array>;
  /** Write timestamps from `meta.recordedAt` (default true). */
  timestamps?: boolean;
}

function blobOf(blobs: ReadonlyMap<string, Uint8Array>, ref: BlobRef): Uint8Array {
  const bytes = blobs.get(ref.hash);
  if (!bytes) throw new TypeError(`Blob ${ref.hash} is missing`);
  return bytes;
}

/**
 * Writes the events of one session back as a capture file. Each action carries the last
 * screen captured since the previous action, and its result (`noResult` when the session has
 * no `ActionCompleted` for it); events a capture cannot hold (`NavigationOccurred`, extra
 * screens between two actions) are dropped. A session with no `SessionEnded` gets
 * `ended: null`.
 *
 * @param events the session's events in order (starting with `SessionStarted`)
 * @param options the blob bytes the events reference
 * @returns the capture
 * @throws {TypeError} when the events do not start with `SessionStarted` or a blob is missing
 */
export function eventsToCapture(
  events: readonly CaptureEventInput[],
  options: EventsToCaptureOptions,
): CaptureV1 {
  const view = projectCapture(events);
  const timestamps = options.timestamps ?? true;
  const s = view.session.data;
  const capture: CaptureV1 = {
    format: CAPTURE_FORMAT,
    platform: s.platform,
    mode: s.mode,
    ...pick(s, [
      "prompt",
      "systemPrompt",
      "app",
      "url",
      "device",
      "viewport",
      "devicePixelRatio",
      "drivers",
      "memory",
    ]),
    ...(timestamps && view.session.at ? { startedAt: view.session.at } : {}),
    actions: view.actions.map((pa) => captureActionOf(pa, options.blobs, timestamps)),
  };
  if (view.ended) {
    capture.ended = {
      reason: view.ended.data.reason,
      ...(view.ended.data.error !== undefined ? { error: view.ended.data.error } : {}),
    };
    if (timestamps && view.ended.at) capture.endedAt = view.ended.at;
  } else {
    capture.ended = null; // without it, ingest would read the default: completed
  }
  return capture;
}

const decoder = new TextDecoder();

function captureActionOf(
  pa: ProjectedAction,
  blobs: ReadonlyMap<string, Uint8Array>,
  timestamps: boolean,
): CaptureAction {
  const d = pa.performed.data;
  const { selector, ...rest } = d.target ?? {};
  const a: CaptureAction = {
    id: d.actionId,
    action: d.kind,
    ...(d.point ? { coordinates: d.point } : {}),
    ...pick(d, [...ACTION_FIELDS, "value"]),
    ...(selector ? { runtimeSelector: selector } : {}),
    ...(Object.keys(rest).length > 0 ? { target: rest } : {}),
    source: d.source,
    ...(pa.step ? { nlStep: pa.step.text } : {}),
    ...(timestamps && pa.performed.at ? { timestamp: pa.performed.at } : {}),
  };
  // A capture holds one screen per action: the last one captured since the previous action.
  const screen = pa.freshScreens.at(-1)?.data;
  if (screen) {
    a.viewHierarchy = decoder.decode(blobOf(blobs, screen.hierarchy));
    a.format = screen.format;
    if (screen.screenshot) {
      const bytes = blobOf(blobs, screen.screenshot);
      a.screenshot = `data:${screen.screenshot.mediaType};base64,${encodeBase64(bytes)}`;
    }
    if (screen.url !== undefined) a.pageUrl = screen.url;
    Object.assign(a, pick(screen, ["viewport", "devicePixelRatio", "scroll"]));
    // on ingest a screen's tab is pageTabId, else the action's tabId
    if (screen.tabId !== undefined && screen.tabId !== a.tabId) a.pageTabId = screen.tabId;
  }
  const done = pa.completed?.data;
  if (done) {
    a.successful = done.ok;
    a.durationMs = done.durationMs;
    if (done.error !== undefined) a.error = done.error;
    if (done.value !== undefined) a.value = done.value;
    if (done.dialogs !== undefined) a.dialogs = done.dialogs;
  } else {
    a.noResult = true;
  }
  if (pa.memoryAfter) {
    a.memoryState = pa.memoryAfter.data.memory;
    if (pa.memoryAfter.data.writtenBy) a.memoryWrittenBy = pa.memoryAfter.data.writtenBy;
  }
  return a;
}
