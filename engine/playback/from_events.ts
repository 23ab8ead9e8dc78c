/**
 * A captured session (its events: an agent blaze, a human recording, an import of a
 * `recording_v1` or a Chrome Recorder file) as a playback plan: every `ActionPerformed` whose
 * `ActionCompleted` did not fail becomes an action; its recorder selectors become the
 * cascade's target, its point the coordinate fallback; `recordedAt` drives recorded timing;
 * the screen captured before it gives its viewport. A double click plays as one, a Recorder
 * click keeps its mouse button, a Recorder step inside a frame is reported skipped, and a
 * Recorder flow's selectors are read as Chrome reads them (`recorderTarget`). The plan opens the page the session started
 * on (`SessionStarted.url`, else the first navigation or screen before any action) unless its
 * first action is a navigate; later navigations are left to the actions that caused them.
 *
 * @module
 */
import type { EventData, EventType } from "../../events/mod.ts";
import type { PlaybackAction, PlaybackPlan, Target } from "./actions.ts";
import { PLAYBACK_TYPE_OF_KIND } from "./actions.ts";
import { targetFromSelectors } from "./target_from_selectors.ts";
import { inFrame, recorderButton, recorderTarget } from "./from_chrome_recorder.ts";
import { InvalidStreamError } from "../../events/mod.ts";
import { ScreenPoint } from "../formats/mod.ts";
import { isPageCssPath } from "./coordinates.ts";

/** Roles of the page itself: a target with one is a click on the page's background. */
const PAGE_ROLES = new Set(["RootWebArea", "WebArea", "document"]);
/** Actions that act on a tab, not an element. */
const TAB_TYPES = new Set(["navigate", "reload", "switch_tab"]);

/** An event as stored or about to be appended: type, data and optionally its time. */
export type SessionEvent = {
  [T in EventType]: { type: T; data: EventData<T>; meta?: { recordedAt?: string } };
}[EventType];

/** Kinds that replay as nothing (setViewport, waits): left out of the plan. */
const NO_OPS = new Set(["wait", "memoryGet"]);

/**
 * Converts a session's events into a plan.
 *
 * @param events the session's events in order
 * @param source where the session came from (recording id, file)
 * @returns the plan
 * @throws {TypeError} when the events hold no `SessionStarted`
 */
export function eventsToPlan(
  events: readonly SessionEvent[],
  source: PlaybackPlan["source"] = { kind: "recording" },
): PlaybackPlan {
  const started = events.find((e) => e.type === "SessionStarted");
  if (!started || started.type !== "SessionStarted") {
    throw new InvalidStreamError("The session has no SessionStarted event: it cannot be replayed");
  }
  const failed = new Set<string>();
  for (const e of events) {
    if (e.type === "ActionCompleted" && !e.data.ok) failed.add(e.data.actionId);
  }
  let viewport = started.data.viewport;
  let dpr = started.data.devicePixelRatio;
  let step = "";
  const actions: PlaybackAction[] = [];
  let startUrl = started.data.url;
  // a Chrome Recorder flow's selectors are read as Chrome reads them (`text/` is contained)
  const recorder = started.data.source?.format === "chrome-recorder";
  for (const e of events) {
    if (!startUrl && actions.length === 0) {
      if (e.type === "NavigationOccurred") startUrl = e.data.url;
      if (e.type === "ScreenCaptured" && e.data.url) startUrl = e.data.url;
    }
    if (e.type === "ScreenCaptured") {
      if (e.data.viewport) viewport = e.data.viewport;
      if (e.data.devicePixelRatio) dpr ??= e.data.devicePixelRatio;
      continue;
    }
    if (e.type === "StepStarted") step = e.data.text;
    if (e.type !== "ActionPerformed") continue;
    const d = e.data;
    if (failed.has(d.actionId) || NO_OPS.has(d.kind)) continue;
    const action: PlaybackAction = { type: playbackType(d) };
    const type = action.type;
    const button = d.kind === "tap" ? recorderButton(d.toolParams?.button) : undefined;
    if (button) action.button = button;
    const attribute = d.toolParams?.selectorAttribute;
    const target: Target = {
      ...targetFromSelectors(d.target?.selector ?? {}),
      ...(recorder
        ? recorderTarget(
          d.target?.selectors ?? {},
          typeof attribute === "string" ? attribute : undefined,
        )
        : targetFromSelectors(d.target?.selectors ?? {})),
    };
    if (d.target?.role && !target.role) target.role = d.target.role;
    if (d.target?.name && !target.name) target.name = d.target.name;
    if (d.point && !TAB_TYPES.has(type) && type !== "key_press") target.point = d.point;
    if (isPageCssPath(target.cssPath) || PAGE_ROLES.has(target.role ?? "")) {
      // the page's background: acted on at its point, never healed onto an element with a role
      // or a name of its own (a name a recorder built from the text the page shows inside it)
      for (const key of Object.keys(target) as (keyof Target)[]) {
        if (key !== "point") delete target[key];
      }
      target.cssPath = "body";
    }
    if (Object.keys(target).length > 0 && !TAB_TYPES.has(type)) action.target = target;
    if (type === "switch_tab") {
      if (d.toolParams?.newTab === true) action.newTab = true;
      if (d.tabId !== undefined) action.tab = d.tabId;
    }
    if (d.text !== undefined) action.text = d.text;
    if (d.value !== undefined) {
      if (type === "type" && action.text === undefined) action.text = d.value;
      else action.value = d.value;
    }
    if (d.url !== undefined) action.url = d.url;
    if (d.key !== undefined) action.key = d.key;
    if (d.checked !== undefined) action.checked = d.checked;
    if (d.expected !== undefined) action.expected = d.expected;
    if (d.storeAs !== undefined) action.storeAs = d.storeAs;
    if (d.direction !== undefined) action.direction = d.direction;
    const to = pagePosition(d.toolParams);
    if (type === "scroll" && !action.target && to) action.scrollTo = to; // a page scroll: exact position
    if (viewport) action.viewport = viewport;
    if (step) action.label = step;
    const ts = e.meta?.recordedAt ? Date.parse(e.meta.recordedAt) : NaN;
    if (Number.isFinite(ts)) action.timestampMs = ts;
    actions.push(action);
  }
  if (startUrl && /^(https?|file):/i.test(startUrl) && actions[0]?.type !== "navigate") {
    actions.unshift({
      type: "navigate",
      url: startUrl,
      label: "Open the app",
      added: true,
      ...(started.data.viewport ? { viewport: started.data.viewport } : {}),
      ...(actions[0]?.timestampMs !== undefined ? { timestampMs: actions[0].timestampMs } : {}),
    });
  }
  return {
    source: { ...source, sessionId: started.data.sessionId },
    platform: started.data.platform,
    actions,
    ...(started.data.viewport ? { viewport: started.data.viewport } : {}),
    ...(dpr ? { devicePixelRatio: dpr } : {}),
    ...(started.data.memory ? { memory: started.data.memory } : {}),
  };
}

/** Tool names of a double click (a Recorder `doubleClick`, a `recording_v1` `double_click`). */
const DOUBLE_CLICKS = new Set(["doubleClick", "double_click", "dblclick"]);

/**
 * The playback type of a captured action: its kind's, a double click's own, and for a Recorder
 * step inside a frame (`toolParams.frame`) one the player reports skipped (`click_in_frame`).
 */
function playbackType(d: EventData<"ActionPerformed">): string {
  const type = d.kind === "tap" && d.toolName !== undefined && DOUBLE_CLICKS.has(d.toolName)
    ? "double_click"
    : PLAYBACK_TYPE_OF_KIND[d.kind] ?? d.kind;
  return inFrame(d.toolParams?.frame) ? `${type}_in_frame` : type;
}

/**
 * The page position a human recorder stored with a page scroll (`toolParams.scrollX/scrollY`);
 * one outside any page (screen_point.ts) is left out, and the scroll goes by its direction.
 */
function pagePosition(
  params: Record<string, unknown> | undefined,
): { x: number; y: number } | undefined {
  const p = ScreenPoint.safeParse({ x: params?.scrollX, y: params?.scrollY });
  return p.success ? p.data : undefined;
}
