/**
 * Validation runs: replay, compare and refine until a trail is proven stable or a step is marked
 * not recordable.
 *
 * @example
 * ```ts
 * import * as validation from "./mod.ts";
 * // A validation replays through a driver (Chromium or Appium): `cairn validate` is a caller.
 * if (Object.keys(validation).length === 0) throw new Error();
 * ```
 *
 * @module
 */
export * from "./runner.ts";
