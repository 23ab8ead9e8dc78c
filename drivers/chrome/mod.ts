/**
 * The Chrome driver: Chromium launched or attached over CDP (puppeteer-core), its accessibility
 * hierarchy, in-page lookups, the human recorder and secret masking in screenshots.
 *
 * @example
 * ```ts
 * import { launchChrome } from "./mod.ts";
 * // Launching needs Chromium, so this example only shows the call's shape.
 * if (typeof launchChrome !== "function") throw new Error();
 * ```
 *
 * @module
 */
export * from "./chrome_driver.ts";
export * from "./human_recorder.ts";
export * from "./launch.ts";
export * from "./profiles.ts";
export * from "./screencast.ts";
