/**
 * Playback planning: trails, recordings and other inputs converted into one action plan, the
 * self-healing selector cascade, and the playback report.
 *
 * @example
 * ```ts
 * import { rebasePlan } from "./mod.ts";
 * const plan = rebasePlan(
 *   { source: { kind: "actions" }, platform: "web", actions: [{ type: "navigate", url: "http://a.test/x" }] },
 *   "http://127.0.0.1:8080/",
 * );
 * if (plan.actions[0]!.url !== "http://127.0.0.1:8080/x") throw new Error();
 * ```
 *
 * @module
 */
export * from "./actions.ts";
export * from "./cascade.ts";
export * from "./coordinates.ts";
export * from "./fragile.ts";
export * from "./from_events.ts";
export * from "./from_synthetic.ts";
export * from "./from_trail.ts";
export * from "./load_plan.ts";
export * from "./opening_problem.ts";
export * from "./override_problems.ts";
export * from "./report.ts";
export * from "./report_answer.ts";
