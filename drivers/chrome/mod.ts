/**
 * The Chrome driver: Chromium launched or attached over CDP (puppeteer-core), its accessibility hierarchy, in-page lookups, the human recorder and secret masking in screenshots.
 *
 * @module
 */
export * from "./chrome_driver.ts";
export * from "./human_recorder.ts";
export * from "./launch.ts";
export * from "./profiles.ts";
