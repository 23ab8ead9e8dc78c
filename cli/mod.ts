/**
 * The `cairn` command line: one module per command (optimize, blaze, record, replay, validate,
 * ingest, export, history, show, serve, mcp, …), their shared flags and the argument parser.
 *
 * @example
 * ```ts
 * import { didYouMean } from "./mod.ts";
 * if (didYouMean("optimise", ["optimize", "replay"]) !== "optimize") throw new Error();
 * ```
 *
 * @module
 */
export * from "./did_you_mean.ts";
export * from "./args.ts";
export * from "./command.ts";
export * from "./errors.ts";
