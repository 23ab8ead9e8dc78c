/**
 * Playback planning: trails, recordings and other inputs converted into one action plan, the self-healing selector cascade, and the playback report.
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
