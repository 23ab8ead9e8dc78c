/**
 * Event schemas: the envelope and the data of every capture, playback and validation event
 * (docs/architecture.md "Events"). Names are past tense. Large payloads are blobs referenced by hash.
 *
 * `events/` imports nothing else of Cairn's, so the small geometry types are repeated here.
 *
 * @module
 */
import { z } from "zod";
import { IsoDateTime } from "./iso_date_time.ts";

/** A content-addressed blob: sha256 hex, media type and size in bytes. */
export const BlobRef = z.object({
  hash: z.string().regex(/^[0-9a-f]{64}$/, "expected a sha256 hex digest"),
  mediaType: z.string(),
  size: z.number().int().nonnegative(),
});
export type BlobRef = z.infer<typeof BlobRef>;

const Point = z.object({ x: z.number(), y: z.number() });
const Size = z.object({ width: z.number(), height: z.number() });
const StringMap = z.record(z.string(), z.string());

// ---- capture events (stream `session-<id>`) ----

export const SessionStarted = z.object({
  sessionId: z.string(),
  mode: z.enum(["agent", "human", "import"]),
  platform: z.enum(["web", "android", "ios"]),
  prompt: z.string().optional(),
  /** The system prompt the agent ran with (slot values may come from it). */
  systemPrompt: z.string().optional(),
  app: z.string().optional(),
  url: z.string().optional(),
  device: z.string().optional(),
  viewport: Size.optional(),
  devicePixelRatio: z.number().optional(),
  drivers: StringMap.optional(),
  /** Memory at the start of the run (input slots). */
  memory: StringMap.optional(),
  /** Where an imported session came from. */
  source: z.object({
    format: z.string(),
    file: z.string().optional(),
    /** The id the source gave the run (recording_v1 `id`, a trace id). */
    id: z.string().optional(),
  }).optional(),
});

export const StepStarted = z.object({ index: z.number().int().nonnegative(), text: z.string() });

export const ScreenCaptured = z.object({
  /** Raw hierarchy as captured (its format names the parser). */
  hierarchy: BlobRef,
  format: z.enum([
    "uiautomator2",
    "uiautomator-dump",
    "xcuitest",
    "maestro",
    "chrome",
    "axtree_v1",
    "trailblaze",
  ]),
  screenshot: BlobRef.optional(),
  url: z.string().optional(),
  viewport: Size.optional(),
  devicePixelRatio: z.number().optional(),
  scroll: Point.optional(),
  tabId: z.string().optional(),
});

export const ActionKind = z.enum([
  "tap",
  "inputText",
  "swipe",
  "scroll",
  "navigate",
  "keyPress",
  "select",
  "check",
  "readText",
  "assertVisible",
  "assertText",
  "memorySet",
  "memoryGet",
  "back",
  "wait",
  /** The page shown again (the browser's reload, F5). */
  "reload",
  /** Another tab brought to the front (`url`, its title as `text`), or a new one opened. */
  "switchTab",
]);
export type ActionKind = z.infer<typeof ActionKind>;

/** What the agent or person named as the target at run time: evidence, never trusted as a selector. */
export const ActionTarget = z.object({
  ref: z.string().optional(),
  role: z.string().optional(),
  name: z.string().optional(),
  /** A selector used at run time (`{ text: "Next" }`, `{ css: "#a" }`): may be wrong. */
  selector: StringMap.optional(),
  /** Web: the DOM selectors a human recorder computed (testId, ariaLabel, id, cssPath, …). */
  selectors: StringMap.optional(),
  axNodeId: z.string().optional(),
});

export const ActionPerformed = z.object({
  actionId: z.string(),
  kind: ActionKind,
  point: Point.optional(),
  /** Swipe end point. */
  to: Point.optional(),
  text: z.string().optional(),
  value: z.string().optional(),
  key: z.string().optional(),
  direction: z.enum(["up", "down", "left", "right"]).optional(),
  url: z.string().optional(),
  /** Expected text of an assertion. */
  expected: z.string().optional(),
  /** Memory key written (readText storeAs, memorySet). */
  storeAs: z.string().optional(),
  checked: z.boolean().optional(),
  toolName: z.string().optional(),
  toolParams: z.record(z.string(), z.unknown()).optional(),
  target: ActionTarget.optional(),
  source: z.enum(["agent", "human"]),
  stepIndex: z.number().int().nonnegative().optional(),
  tabId: z.string().optional(),
});

export const MemorySnapshotted = z.object({
  memory: StringMap,
  /** key → name of the tool that last wrote it (provisioning tools may be substituted at any length). */
  writtenBy: StringMap.optional(),
});

/**
 * A JavaScript dialog a page opened and the browser driver answered at once, as Playwright does
 * by default: an alert accepted, the others dismissed (confirm → false, prompt → null,
 * beforeunload → the page stays).
 */
export const HandledDialog = z.object({
  type: z.enum(["alert", "confirm", "prompt", "beforeunload"]),
  message: z.string(),
  response: z.enum(["accepted", "dismissed"]),
  /** The tab that opened it. */
  tabId: z.string().optional(),
});
export type HandledDialog = z.infer<typeof HandledDialog>;

export const ActionCompleted = z.object({
  actionId: z.string(),
  ok: z.boolean(),
  error: z.string().optional(),
  durationMs: z.number().nonnegative(),
  /** Value read by readText / memoryGet. */
  value: z.string().optional(),
  /** JavaScript dialogs answered since the previous action (blaze). */
  dialogs: z.array(HandledDialog).optional(),
});

export const NavigationOccurred = z.object({
  url: z.string(),
  from: z.string().optional(),
  reason: z.enum(["navigate", "load", "reload", "spa", "new_tab", "redirect", "back"]),
  tabId: z.string().optional(),
  /** The HTTP status of an error page landed on (≥ 400; the page still opened). */
  status: z.number().int().optional(),
  /** What the caller was told about it, as a playback's `warning` (`HTTP 404 Not Found`). */
  warning: z.string().optional(),
});

export const StepEnded = z.object({
  index: z.number().int().nonnegative(),
  ok: z.boolean().optional(),
});

export const SessionEnded = z.object({
  reason: z.enum(["completed", "failed", "clarification", "interrupted"]),
  error: z.string().optional(),
});

// ---- playback events (stream `playback-<id>`) ----

export const PlaybackStarted = z.object({
  playbackId: z.string(),
  source: z.object({
    kind: z.enum(["trail", "recording", "flow", "actions"]),
    sessionId: z.string().optional(),
    recordingId: z.string().optional(),
    file: z.string().optional(),
  }),
  platform: z.enum(["web", "android", "ios"]),
  actionsTotal: z.number().int().nonnegative(),
  /**
   * How many of `actionsTotal` Cairn added (the page it opens first): not the source's actions,
   * so the report's `actions_*` leave them out. Absent in streams written before it was: the
   * report then leaves out each `added` result as it comes.
   */
  addedActions: z.number().int().nonnegative().optional(),
  timing: z.enum(["fast", "recorded"]),
  onError: z.enum(["continue", "skip_dependent", "stop"]),
  testId: z.string().optional(),
  autoBoundary: z.boolean().optional(),
  viewport: Size.optional(),
  warnings: z.array(z.string()).optional(),
});

export const PlaybackActionResolved = z.object({
  index: z.number().int().nonnegative(),
  /** Cascade level that found the element (`test_id`, `aria_label`, `role_name`, `id`, `text`, `css_path`, `coordinates`). */
  strategy: z.string(),
  selector: z.string(),
  healed: z.boolean(),
  point: Point.optional(),
  /** Bounds of the element acted on, for comparison across runs. */
  bounds: z.object({ x: z.number(), y: z.number(), w: z.number(), h: z.number() }).optional(),
  /** The screen the resolution ran against. */
  screen: BlobRef.optional(),
  tried: z.array(z.object({ strategy: z.string(), selector: z.string(), matches: z.number() }))
    .optional(),
});

export const PlaybackActionCompleted = z.object({
  /** Position in this playback's plan, from 0. */
  index: z.number().int().nonnegative(),
  /**
   * The action's number in its source (`--override N`, the replay table) when it is not `index`:
   * the plan opened the page first with an `added` action.
   */
  sourceIndex: z.number().int().nonnegative().optional(),
  /** Cairn added it (the page the source starts on, opened first): it has no source number. */
  added: z.boolean().optional(),
  action: z.string(),
  status: z.enum(["ok", "failed", "healed", "skipped"]),
  errorCode: z.enum([
    "selector_not_found",
    "element_hidden",
    "element_disabled",
    "navigation_timeout",
    "page_error",
    "url_mismatch",
    "redacted_value",
    "unsupported_action_type",
    "skipped_dependency",
    "assertion_failed",
    "ambiguous",
    "timeout",
    "unsafe_url",
  ]).optional(),
  error: z.string().optional(),
  likelyCause: z.string().optional(),
  durationMs: z.number().nonnegative(),
  pageUrl: z.string().optional(),
  originalUrl: z.string().optional(),
  screenshot: BlobRef.optional(),
  selectorUsed: z.string().optional(),
  healedSelector: z.string().optional(),
  /** The cascade level that healed it: 2 for the chain's second selector (coordinates last). */
  healedLevel: z.number().int().positive().optional(),
  /** Value read (readText) or memory written. */
  value: z.string().optional(),
  storeAs: z.string().optional(),
  /** Where the screenshot was written (`screenshot_path`). */
  screenshotPath: z.string().optional(),
  /** How a navigation decided the page was ready, and how long it waited. */
  navigation: z.object({
    waitedFor: z.enum(["load", "dom_stable", "timeout"]),
    durationMs: z.number().nonnegative(),
  }).optional(),
  /** A diagnostic that does not fail the action (navigation cap hit, …). */
  warning: z.string().optional(),
  /**
   * What the player did on its own to carry the action out, not recorded in the trail (a tap
   * that gives a device's field the focus before typing or a key press).
   */
  playerActions: z.array(z.string()).optional(),
  /** The action as shown in the subtitle (`click [data-testid=submit]`). */
  description: z.string().optional(),
});

export const PlaybackCompleted = z.object({
  status: z.enum(["completed", "failed"]),
  durationMs: z.number().nonnegative(),
  /** Why a playback ended before its last action (stopped by its signal: a server shutdown). */
  error: z.string().optional(),
  /**
   * The playback's video (`replay --video`, `video: true`): the WebM file written, its length and
   * frame count, or why there is none (`error`: ffmpeg failed, a device that cannot record).
   */
  video: z.object({
    path: z.string().optional(),
    durationMs: z.number().nonnegative().optional(),
    frames: z.number().int().nonnegative().optional(),
    error: z.string().optional(),
  }).optional(),
});

// ---- validation events (stream `validation-<id>`) ----

export const ValidationStarted = z.object({
  validationId: z.string(),
  sessionId: z.string(),
  policy: z.enum(["authoring", "dev", "ci"]),
  maxIterations: z.number().int().positive(),
  url: z.string().optional(),
});

export const StepStability = z.object({
  index: z.number().int().nonnegative(),
  step: z.string(),
  /**
   * skipped: not validated, a memory value it types was not supplied. not_recordable: the trail
   * marks it `recordable: false` (the agent handles it): nothing replayed, nothing proven.
   */
  status: z.enum(["stable", "refined", "unstable", "skipped", "not_recordable"]),
  evidence: z.array(z.string()),
  /** The step passed in this iteration's replay (validation iterations). */
  passed: z.boolean().optional(),
  /** This iteration adopted new selectors for the step (tried by the next replay). */
  refined: z.boolean().optional(),
  /** It failed only after an earlier step failed: not held against its own selectors. */
  dependent: z.boolean().optional(),
  /** An empty `recording: []`: the step replays no action, so it passes but proves nothing. */
  empty: z.boolean().optional(),
});

export const ValidationIterationCompleted = z.object({
  iteration: z.number().int().positive(),
  playbackId: z.string(),
  passed: z.boolean(),
  steps: z.array(StepStability),
  /** The trail YAML replayed in this iteration. */
  trail: z.string(),
  /** The replay's screens: the hierarchy each action resolved against, by plan action index. */
  screens: z.array(z.object({
    index: z.number().int().nonnegative(),
    hierarchy: BlobRef,
    format: z.string(),
  })).optional(),
});

export const ValidationCompleted = z.object({
  status: z.enum(["stable", "unstable", "failed"]),
  iterations: z.number().int().nonnegative(),
  trail: z.string(),
  steps: z.array(StepStability),
  message: z.string().optional(),
});

/** Every event type with the schema of its data (current schema version). */
export const EVENT_SCHEMAS = {
  SessionStarted,
  StepStarted,
  ScreenCaptured,
  ActionPerformed,
  MemorySnapshotted,
  ActionCompleted,
  NavigationOccurred,
  StepEnded,
  SessionEnded,
  PlaybackStarted,
  PlaybackActionResolved,
  PlaybackActionCompleted,
  PlaybackCompleted,
  ValidationStarted,
  ValidationIterationCompleted,
  ValidationCompleted,
} as const;

export type EventType = keyof typeof EVENT_SCHEMAS;
export type EventData<T extends EventType> = z.infer<typeof EVENT_SCHEMAS[T]>;

/** Current schema version of each event type; a change adds a version and an upcaster. */
export const CURRENT_SCHEMA_VERSION: Record<EventType, number> = {
  SessionStarted: 1,
  StepStarted: 1,
  // 2: hierarchy/screenshot became BlobRefs (v1 had flat hashes; see events/upcasters.ts)
  ScreenCaptured: 2,
  ActionPerformed: 1,
  MemorySnapshotted: 1,
  ActionCompleted: 1,
  NavigationOccurred: 1,
  StepEnded: 1,
  SessionEnded: 1,
  PlaybackStarted: 1,
  PlaybackActionResolved: 1,
  PlaybackActionCompleted: 1,
  PlaybackCompleted: 1,
  ValidationStarted: 1,
  ValidationIterationCompleted: 1,
  ValidationCompleted: 1,
};

/** Metadata every stored event carries. */
export const EventMeta = z.object({
  /** When it happened: ISO 8601 with seconds and a time zone (the store refuses anything else). */
  recordedAt: IsoDateTime,
  causationId: z.string().optional(),
  correlationId: z.string().optional(),
  idempotencyKey: z.string().optional(),
});
export type EventMeta = z.infer<typeof EventMeta>;

/** A stored event as read back, discriminated by `type`. */
export type StoredEvent = {
  [T in EventType]: {
    position: number;
    streamId: string;
    streamVersion: number;
    type: T;
    schemaVersion: number;
    data: EventData<T>;
    meta: EventMeta;
  };
}[EventType];

/** An event to append: type and data; the store assigns positions, versions and `recordedAt`. */
export type NewEvent = {
  [T in EventType]: {
    type: T;
    data: EventData<T>;
    meta?: Omit<EventMeta, "recordedAt" | "idempotencyKey"> & { recordedAt?: string };
  };
}[EventType];
