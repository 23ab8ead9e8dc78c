/**
 * What the validation loop's pieces share ({@linkcode LoopContext}): the driver and store, the
 * indexed capture, the options, the state so far, the screens each action was replayed on.
 *
 * @module
 */
import type { EventStore } from "../../events/mod.ts";
import type { Screen } from "../../engine/screens/mod.ts";
import type { Trail } from "../../engine/trail/mod.ts";
import type { ValidationState } from "../../engine/validation/mod.ts";
import type { Driver } from "../../drivers/mod.ts";
import type { SecretScrubber } from "../../drivers/mod.ts";
import type { CaptureIndex } from "./_capture.ts";
import type { ValidationOptions } from "./options.ts";

/** The validation loop as its pieces see it. */
export interface LoopContext {
  readonly driver: Driver;
  readonly store: EventStore;
  readonly capture: CaptureIndex;
  readonly options: ValidationOptions;
  readonly state: ValidationState;
  /** The memory values supplied: kept out of every event and blob the replays store. */
  readonly secrets: SecretScrubber;
  /** Replay screens of each (step, action), oldest first. */
  readonly replayScreens: Map<string, Screen[]>;
  /** The trail the loop is on (the one a broken loop reports). */
  current: Trail;
  /** Reports one line of progress. */
  say(line: string): void;
}
