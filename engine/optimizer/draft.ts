/**
 * The optimizer's working model: the capture folded into actions (each with the screen
 * captured before it and the memory snapshot after it), and the draft trail the passes refine.
 *
 * @module
 */
import type { EventData, NewEvent } from "../../events/mod.ts";
import type { Point, Screen } from "../screens/mod.ts";
import type { Selector, SelectorMode, TrailActionKind } from "../trail/mod.ts";
import type { ScreenTable } from "../screens/mod.ts";
import { InvalidStreamError } from "../../events/mod.ts";

/** A captured action with its context. */
export interface CapturedAction {
  /** Position in the capture's action order. */
  seq: number;
  step: number;
  data: EventData<"ActionPerformed">;
  ok: boolean;
  error?: string;
  /** The value read (readText, memoryGet). */
  value?: string;
  /** Blob hash of the last screen captured before the action. */
  screen?: string;
  /** Memory right after the action (the snapshot follows the tool call). */
  memory: Record<string, string>;
  writtenBy: Record<string, string>;
}

/** The capture, folded. */
export interface CaptureModel {
  sessionId: string;
  platform: "web" | "android" | "ios";
  prompt?: string;
  systemPrompt?: string;
  url?: string;
  /** The format an imported session came from (`chrome-recorder`: `SessionStarted.source`). */
  sourceFormat?: string;
  initialMemory: Record<string, string>;
  steps: string[];
  actions: CapturedAction[];
  /** Screen size by blob hash. */
  sizes: Map<string, { width: number; height: number }>;
}

/** A selector candidate with its score and verdict. */
export interface Candidate {
  selector: Selector;
  /** Lower is more durable. */
  score: number;
  /** The family it belongs to (id, testId, contentDescription, roleName, parent, text, classIndex, cssPath, xy). */
  family: string;
  /** How many nodes it matches on the screen (1 = unique; xy is always 1). */
  matches: number;
  /** Why it was rejected, when it was. */
  rejected?: string;
  /** Heuristics v2: whether strict mode may take it (else: its family is id, testId or label). */
  exact?: boolean;
  /** Heuristics v2: its `textRegex` is the value's shape, so it holds when the value changes. */
  valueShape?: boolean;
  /** v3, Android: an index with no row anchor to pick the node: why it is the last resort. */
  lastResort?: string;
  /**
   * v3, Android: the assertion's own expected text, a fallback that finds what the assertion
   * compares (Maestro's `assertVisible`): not a value to avoid for that assertion.
   */
  assertsOwnText?: boolean;
}

/**
 * Heuristics v3: what shapes an action's selector chain beyond its mode (set by the modes pass,
 * read again wherever a later pass re-chooses the action's selector).
 */
export interface ChainOptions {
  /** The heuristics level (`heuristicsLevel`): chains from 3. */
  level: number;
  /**
   * Values no selector may be by: what the action types, reads or asserts, and the capture's
   * slot values (typed texts, values read, memory values).
   */
  avoid: readonly string[];
  /** The action asserts: a pattern of the asserted text never stands for it. */
  asserts?: boolean;
  /** The action reads: a selector holding the value read is never taken, not even as a last resort. */
  reads?: boolean;
}

/** One action of the draft. */
export interface DraftAction {
  src: CapturedAction;
  kind: TrailActionKind;
  /** Index of the target node in the table of `src.screen`. */
  node?: number;
  /** A node used only for naming (the focused field of a selector-less inputText). */
  fieldNode?: number;
  point?: Point;
  candidates?: Candidate[];
  selector?: Selector;
  selectors?: Selector[];
  text?: string;
  storeAs?: string;
  equals?: string;
  matches?: string;
  url?: string;
  key?: string;
  direction?: "up" | "down" | "left" | "right";
  value?: string;
  checked?: boolean;
  repeat?: number;
  /** Why the action leaves the trail (concision). */
  drop?: string;
  /**
   * v2: why the player cannot do the action as recorded (a right click, a click in a frame):
   * concision gives it a step of its own, `agentStep`, for the agent (`recordable: false`).
   */
  unplayable?: string;
  /** v2: the NL step the agent is given for an unplayable action. */
  agentStep?: string;
  /**
   * v2, web: the screen before the action is not the page at it (`earlier`, `none`) and shows
   * no node the recorder's target agrees with: the recorder's selectors name the element.
   */
  recorderTarget?: "earlier" | "none";
  /** Set when a later pass folded this action into another. */
  mergedInto?: number;
  /** Explanation lines (chosen, rejected, slot, pattern, expression). */
  notes: string[];
  /** v3: how the action's selector chain is shaped (the values it must not be selected by). */
  chain?: ChainOptions;
  /** The value the action saw (readText value, assertion expected), before templating. */
  literal?: string;
  /**
   * v2, Android: the assertion's value is its node's content description, not its text. The
   * player's assertText reads text, so the value is checked by a selector that carries it
   * (`assertVisible` of `contentDescription`), never moved into `equals`.
   */
  describedValue?: boolean;
  /**
   * v2, Android: the assertion's node shows no text and neither it nor a frame around it carries
   * the value (an image the agent checked by eye): the player's assertText would read "" there,
   * so the assertion is a presence check (`assertVisible`), never `equals` or `matches`.
   */
  showsNoText?: boolean;
  /**
   * v2, Android: every candidate of a `describedValue` assertion, the ones that do not carry the
   * description included (the slots pass takes one when the description holds a slot value).
   */
  allCandidates?: Candidate[];
}

/** One step of the draft. */
export interface DraftStep {
  text: string;
  selectorMode?: SelectorMode;
  recordable?: boolean;
  actions: DraftAction[];
}

/** A captured slot: a value read from the screen and stored under a name. */
export interface CapturedSlot {
  name: string;
  value: string;
  seq: number;
}

/** The draft trail the passes refine. */
export interface Draft {
  model: CaptureModel;
  mode: SelectorMode;
  /** The heuristics version's number (`heuristicsLevel`): a change a pass gates on `>= 2` is v2's. */
  level: number;
  steps: DraftStep[];
  memory: Record<string, string | null>;
  /** Captured slots in capture order (set by the slots pass). */
  captured: CapturedSlot[];
  /** Input slots with the literal they replaced (set by the slots pass). */
  inputs: CapturedSlot[];
  warnings: string[];
}

/** What every pass may read besides the draft. */
export interface PassContext {
  /** The table of a screen by blob hash (cached: one per distinct blob). */
  table(hash: string): ScreenTable | undefined;
  screen(hash: string): Screen | undefined;
}

/**
 * Parsed screens by hierarchy blob hash, as the optimizer reads them; a source that reads screens
 * from a store tells a screen's size without reading it whole (`sizeOf`).
 */
export interface ScreenSource extends ReadonlyMap<string, Screen> {
  sizeOf?(hash: string): { width: number; height: number } | undefined;
}

/**
 * Folds capture events into a {@linkcode CaptureModel}.
 *
 * @param events the session stream's events in order
 * @param screens parsed screens by blob hash (their sizes are kept: from `sizeOf` when the map
 *   has it)
 * @returns the model
 * @throws {TypeError} when the stream has no SessionStarted
 */
export function foldCapture(
  events: readonly NewEvent[],
  screens: ScreenSource,
): CaptureModel {
  let started: EventData<"SessionStarted"> | undefined;
  const steps: string[] = [];
  const actions: CapturedAction[] = [];
  const byId = new Map<string, CapturedAction>();
  let screen: string | undefined;
  let step = -1;
  let memory: Record<string, string> = {};
  let writtenBy: Record<string, string> = {};
  let last: CapturedAction | undefined;
  const sizes = new Map<string, { width: number; height: number }>();
  for (const e of events) {
    switch (e.type) {
      case "SessionStarted":
        started = e.data;
        memory = { ...(e.data.memory ?? {}) };
        break;
      case "StepStarted":
        steps.push(e.data.text);
        step = steps.length - 1;
        break;
      case "ScreenCaptured": {
        screen = e.data.hierarchy.hash;
        if (!sizes.has(screen)) {
          const size = screens.sizeOf ? screens.sizeOf(screen) : screens.get(screen);
          if (size) sizes.set(screen, { width: size.width, height: size.height });
        }
        break;
      }
      case "ActionPerformed": {
        if (step < 0) {
          steps.push(started?.prompt ?? "Recorded actions");
          step = 0;
        }
        const a: CapturedAction = {
          seq: actions.length,
          step,
          data: e.data,
          ok: true,
          memory: { ...memory },
          writtenBy: { ...writtenBy },
        };
        if (screen !== undefined) a.screen = screen;
        actions.push(a);
        byId.set(e.data.actionId, a);
        last = a;
        break;
      }
      case "ActionCompleted": {
        const a = byId.get(e.data.actionId);
        if (a) {
          a.ok = e.data.ok;
          if (e.data.error !== undefined) a.error = e.data.error;
          if (e.data.value !== undefined) a.value = e.data.value;
        }
        break;
      }
      case "MemorySnapshotted":
        memory = { ...e.data.memory };
        writtenBy = { ...writtenBy, ...(e.data.writtenBy ?? {}) };
        if (last) {
          last.memory = { ...memory };
          last.writtenBy = { ...writtenBy };
        }
        break;
      case "NavigationOccurred":
      case "StepEnded":
      case "SessionEnded":
      case "PlaybackStarted":
      case "PlaybackActionResolved":
      case "PlaybackActionCompleted":
      case "PlaybackCompleted":
      case "ValidationStarted":
      case "ValidationIterationCompleted":
      case "ValidationCompleted":
        break;
      default: {
        const never: never = e;
        throw new TypeError(`Unknown event type ${(never as { type: string }).type}`);
      }
    }
  }
  if (!started) {
    throw new InvalidStreamError("Cannot project a trail: the stream has no SessionStarted");
  }
  const model: CaptureModel = {
    sessionId: started.sessionId,
    platform: started.platform,
    initialMemory: { ...(started.memory ?? {}) },
    steps,
    actions,
    sizes,
  };
  if (started.prompt !== undefined) model.prompt = started.prompt;
  if (started.systemPrompt !== undefined) model.systemPrompt = started.systemPrompt;
  if (started.url !== undefined) model.url = started.url;
  if (started.source !== undefined) model.sourceFormat = started.source.format;
  return model;
}
