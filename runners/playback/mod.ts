/**
 * Playback runs: a trail (or recording) replayed on a driver with healing, settling, the in-page overlay and the live report.
 *
 * @module
 */
export * from "./runner.ts";
