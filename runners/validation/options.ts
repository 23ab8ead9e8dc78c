/**
 * What a caller may ask of a validation ({@linkcode ValidationOptions}) and the errors a start
 * is refused with.
 *
 * @module
 */
import type { Policy, ValidationState } from "../../engine/validation/mod.ts";
import type { SelectorMode, Trail } from "../../engine/trail/mod.ts";

/** Options of {@linkcode startValidation}. */
export interface ValidationOptions {
  /** The url every replay opens (default: the capture's). */
  url?: string;
  /** authoring (default), dev or ci. */
  policy?: Policy;
  /** Replays at most under the authoring policy (default 3). */
  maxIterations?: number;
  /** Validation id (default a random `val-…`). */
  validationId?: string;
  /**
   * Selector mode the capture is projected at (default adaptive). A trail given in `trail` that
   * names its own `config.selectorMode` is compared with the capture projected at that mode
   * instead, as for `heuristics`: the kinds and targets it was written from.
   */
  mode?: SelectorMode;
  /**
   * Heuristics version the capture is projected at (default the current one). A trail given
   * in `trail` that names its own `config.heuristics` is compared with the capture projected
   * at that version instead: the targets it was written from.
   */
  heuristics?: string;
  /** A trail to validate instead of projecting the capture (ci: the committed trail). */
  trail?: Trail;
  /**
   * The text `trail` was parsed from (a file the user wrote): the final trail is that text with
   * only what validation changed replaced, so comments and the user's spelling survive.
   */
  trailSource?: string;
  /**
   * Values for the trail's memory keys (a password slot the trail keeps as `null`): used by the
   * replays only, never stored (not in an event, the trail or the report).
   */
  memory?: Readonly<Record<string, string>>;
  /**
   * More values kept out of every event and blob the validation stores, as `memory`'s are: those
   * given to earlier runs in the same browser (`cairn serve`), whose page the first replay may
   * start on.
   */
  secrets?: readonly string[];
  /**
   * Called before each replay after the first, once the last one ended: `cairn serve` opens a
   * fresh tab there (in a browser it launched, in a fresh browser context), so each replay starts
   * from the clean state the first one did and the capture was made from, and a page that counts
   * its visits in local storage is not flagged unstable for what an earlier replay left.
   */
  beforeReplay?: () => Promise<void>;
  /** One line per iteration and per step. */
  onProgress?: (line: string) => void;
  /** How long a lookup waits for the page before the cascade gives up (default 1 000 ms). */
  locateWaitMs?: number;
  /** Per-action timeout (default 10 000 ms). */
  actionTimeoutMs?: number;
  /** Stops the loop: the running replay stops before its next action, the validation fails. */
  signal?: AbortSignal;
}

/** A started validation. */
export interface StartedValidation {
  validationId: string;
  streamId: string;
  /** Settles with the final state; rejects only when the loop itself breaks. */
  done: Promise<ValidationState>;
}

/** Raised by {@linkcode startValidation} while another validation runs on the same browser. */
export class ValidationBusyError extends Error {
  override name = "ValidationBusyError";
  constructor() {
    super("A validation is already running on this browser; wait for it to complete");
  }
}

/** Raised by {@linkcode startValidation} when the trail given names another session. */
export class TrailSessionError extends Error {
  override name = "TrailSessionError";
}

/** Raised by {@linkcode startValidation} when `options.memory` names a key the trail lacks. */
export class MemoryKeyError extends Error {
  override name = "MemoryKeyError";
  /**
   * @param message what is wrong
   * @param unknown the keys the trail neither has nor reads
   */
  constructor(message: string, readonly unknown: readonly string[] = []) {
    super(message);
  }
}

/** Raised by {@linkcode startValidation} when the trail's platform is not the driver's. */
export class PlatformMismatchError extends Error {
  override name = "PlatformMismatchError";
}
