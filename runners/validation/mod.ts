/**
 * Validation runs: replay, compare and refine until a trail is proven stable or a step is marked not recordable.
 *
 * @module
 */
export * from "./runner.ts";
