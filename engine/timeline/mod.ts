/**
 * The timeline: time travel over a run's events (state at any position) and the contact sheet of its screenshots.
 *
 * @module
 */
export * from "./time_travel.ts";
export * from "./timeline_sheet.ts";
export * from "./snapshot_at.ts";
