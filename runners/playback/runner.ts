/**
 * Runs a {@linkcode PlaybackPlan} through any {@linkcode Driver}: one action at a time,
 * each located by the self-healing cascade, each result appended to the stream
 * `playback-<id>` as `PlaybackActionResolved` / `PlaybackActionCompleted` between
 * `PlaybackStarted` and `PlaybackCompleted`. The report is a projection of those events.
 *
 * `startPlayback` returns the playback id at once; `done` settles with the final report.
 * One playback runs at a time per browser.
 *
 * @module
 */
import type { EventStore } from "../../events/mod.ts";
import type { PlaybackPlan, PlaybackReport } from "../../engine/playback/mod.ts";
import type { Driver } from "../../drivers/mod.ts";
import { PlaybackBusyError, type PlaybackOptions, type StartedPlayback } from "./options.ts";
import { Run } from "./_run.ts";

export * from "./options.ts";
export { playbackStream } from "./_context.ts";
export { readPlaybackReport } from "./report.ts";
export { sameUrl } from "./_navigation.ts";

const busy = new WeakSet<object>();

/**
 * What one playback at a time holds: the browser (two playbacks in one browser's tabs would
 * cross), or the driver itself when its tabs live in a browser context of its own in a shared
 * browser (a suite's workers: they touch no tab of each other's).
 */
function lockKey(driver: Driver): object {
  if ((driver as { isolated?: unknown }).isolated === true) return driver;
  const browser = (driver as { browser?: unknown }).browser;
  return typeof browser === "object" && browser !== null ? browser : driver;
}

/**
 * Starts a playback and returns at once; the actions run in the background.
 *
 * @param driver the browser or device
 * @param store where the playback events go
 * @param plan the actions
 * @param options timing, error mode, boundary, overrides, tab, timeouts
 * @returns the playback id and a promise of the final report
 * @throws {PlaybackBusyError} when a playback already runs on this browser
 */
export async function startPlayback(
  driver: Driver,
  store: EventStore,
  plan: PlaybackPlan,
  options: PlaybackOptions = {},
): Promise<StartedPlayback> {
  const key = lockKey(driver);
  if (busy.has(key)) throw new PlaybackBusyError();
  busy.add(key);
  try {
    await options.prepare?.();
    const run = new Run(driver, store, plan, options);
    await run.begin();
    const done = run.play().finally(() => busy.delete(key));
    return { playbackId: run.id, streamId: run.stream, done };
  } catch (err) {
    busy.delete(key);
    throw err;
  }
}

/**
 * Plays a plan to the end.
 *
 * @param driver the browser or device
 * @param store where the playback events go
 * @param plan the actions
 * @param options see {@linkcode PlaybackOptions}
 * @returns the final report
 */
export async function runPlayback(
  driver: Driver,
  store: EventStore,
  plan: PlaybackPlan,
  options: PlaybackOptions = {},
): Promise<PlaybackReport> {
  const started = await startPlayback(driver, store, plan, options);
  return await started.done;
}
