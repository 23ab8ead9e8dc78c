/**
 * The timeline: time travel over a run's events (state at any position) and the contact sheet of
 * its screenshots.
 *
 * @example
 * ```ts
 * import { SqliteEventStore } from "../../events/mod.ts";
 * import { stateAt } from "./mod.ts";
 * const store = SqliteEventStore.open(":memory:");
 * await store.append("session-a", [{ type: "StepStarted", data: { index: 0, text: "Open" } }]);
 * const state = await stateAt(store, "session-a", 1);
 * if (state.step?.text !== "Open") throw new Error();
 * store.close();
 * ```
 *
 * @module
 */
export * from "./answers.ts";
export * from "./time_travel.ts";
export * from "./timeline_sheet.ts";
export * from "./snapshot_at.ts";
