/**
 * Exporters of trails to other runners: Playwright specs, Maestro flows and DevTools Recorder JSON.
 *
 * @module
 */
export * from "./maestro.ts";
export * from "./playwright.ts";
export * from "./recorder.ts";
export * from "./shared.ts";
