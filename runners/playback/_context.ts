/**
 * What one playback's pieces share: the run's state (memory, viewport, the action in flight's
 * deadline, the results so far) in a {@linkcode RunContext}, and how an action fails
 * ({@linkcode ActionFailure}, {@linkcode TimeoutFailure}).
 *
 * @module
 */
import type { EventData, EventStore } from "../../events/mod.ts";
import { type Landmark, type PlaybackPlan, sourceNumbers } from "../../engine/playback/mod.ts";
import { type Driver, DriverError, type FoundElement, type Viewport } from "../../drivers/mod.ts";
import { SecretScrubber } from "../../drivers/mod.ts";
import { DEFAULT_ACTION_TIMEOUT_MS, type PlaybackOptions } from "./options.ts";

/** An action's result as the report stores it. */
export type Completed = EventData<"PlaybackActionCompleted">;
/** How an action's element was found. */
export type Resolved = EventData<"PlaybackActionResolved">;
/** The selector levels a lookup tried. */
export type Tried = NonNullable<Resolved["tried"]>;
/** What playing an action gives, before the report's own fields (index, timing) are added. */
export type Outcome = Omit<Completed, "index" | "action" | "durationMs" | "description">;
/** What the lookup of an action's element left for the report (also when it failed). */
export type LookupState = { resolved?: Resolved; element?: FoundElement };

/** An action that failed, with the report's error code (and the levels tried, for a lookup). */
export class ActionFailure extends Error {
  constructor(
    readonly code: NonNullable<Completed["errorCode"]>,
    message: string,
    readonly tried?: Tried,
  ) {
    super(message);
  }
}

/** An action (or a page call) that ran out of time: the page is left unresponsive. */
export class TimeoutFailure extends Error {}

/** The first line of an error's message. */
export function errorText(err: unknown): string {
  if (err instanceof DriverError || err instanceof Error) return err.message.split("\n")[0]!;
  return String(err);
}

/**
 * The stream a playback's events go to.
 *
 * @param playbackId the playback id
 * @returns `playback-<id>`
 */
export function playbackStream(playbackId: string): string {
  return `playback-${playbackId}`;
}

/** The state of one playback, shared by the pieces that play its actions. */
export class RunContext {
  readonly id: string;
  readonly stream: string;
  version = 0;
  memory: Record<string, string>;
  viewport: Viewport = { width: 0, height: 0, devicePixelRatio: 1 };
  urlMismatch = false;
  blocked = false;
  /**
   * `skip_dependent`: memory keys whose producing action (a read_text or memory_set with
   * `storeAs`) failed or was skipped, with that action's index; cleared when one produces it.
   */
  unproduced = new Map<string, number>();
  /** Each action's number in its source (undefined: added by Cairn). */
  numbers: (number | undefined)[];
  /** How many of the plan's actions are the source's own (not added by Cairn). */
  sourceTotal: number;
  started = 0;
  lastUrl = "";
  /** Why the page last failed to answer a bounded call; cleared when it answers again. */
  unresponsive: string | undefined;
  /** `options.secrets`, taken out of every stored event. */
  secrets = new SecretScrubber();
  /** When the action in flight times out (`performance.now()` clock). */
  deadline = 0;
  /** The results so far, by index. */
  results: Completed[] = [];
  /**
   * The elements earlier actions found by a selector, with their recorded points: they register
   * the recorded layout on the current screen (`layoutOffset`).
   */
  landmarks: Landmark[] = [];

  constructor(
    readonly driver: Driver,
    readonly store: EventStore,
    readonly plan: PlaybackPlan,
    readonly options: PlaybackOptions,
  ) {
    this.id = options.playbackId ?? `pb-${crypto.randomUUID().slice(0, 12)}`;
    this.stream = playbackStream(this.id);
    this.memory = { ...(plan.memory ?? {}), ...(options.memory ?? {}) };
    this.numbers = sourceNumbers(plan.actions);
    this.sourceTotal = this.numbers.filter((n) => n !== undefined).length;
    for (const s of options.secrets ?? []) this.secrets.add(s);
    driver.addSecrets?.(options.secrets ?? []);
  }

  /**
   * How messages name the action at a plan position: `action N`, N its `index` in the report's
   * results (after a navigate Cairn added, one more than its number in the source).
   */
  name(index: number): string {
    const n = this.numbers[index];
    return n === undefined ? "the opening navigate" : `action ${index}`;
  }

  /**
   * The subtitle's progress: `3/12`, the action's place among the source's own actions (its
   * number + 1) and how many there are, so an added navigate shifts neither; `+` for the
   * navigate Cairn added (the report's `+`).
   */
  progress(index: number): string {
    const n = this.numbers[index];
    return n === undefined ? "+" : `${n + 1}/${this.sourceTotal}`;
  }

  /** The override for the action at a plan position (keyed by its source number). */
  override(index: number): string | undefined {
    const n = this.numbers[index];
    return n === undefined ? undefined : this.options.valueOverrides?.[String(n)];
  }

  /** The action timeout: the caller's, else the default. */
  actionMs(): number {
    return this.options.actionTimeoutMs ?? DEFAULT_ACTION_TIMEOUT_MS;
  }

  /** What is left of the action in flight's timeout (ms). */
  left(): number {
    return this.deadline - performance.now();
  }
}
