/**
 * Playback runs: a trail (or recording) replayed on a driver with healing, settling, the in-page
 * overlay and the live report.
 *
 * @example
 * ```ts
 * import * as playback from "./mod.ts";
 * // A run needs a driver (Chromium or Appium): `cairn replay` (cli/replay.ts) is a caller.
 * if (Object.keys(playback).length === 0) throw new Error();
 * ```
 *
 * @module
 */
export * from "./runner.ts";
export * from "./video.ts";
