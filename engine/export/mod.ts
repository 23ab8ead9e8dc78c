/**
 * Exporters of trails to other runners: Playwright specs, Maestro flows and DevTools Recorder
 * JSON.
 *
 * @example
 * ```ts
 * import { parseTrail } from "../trail/mod.ts";
 * import { trailToPlaywright } from "./mod.ts";
 * const trail = parseTrail("config: {}\ntrail:\n  - step: Go\n    recording:\n      - tap: { testId: go }\n");
 * const spec = trailToPlaywright(trail);
 * if (!spec.text.includes("getByTestId(\"go\")")) throw new Error(spec.text);
 * ```
 *
 * @module
 */
export * from "./maestro.ts";
export * from "./playwright.ts";
export * from "./recorder.ts";
export * from "./shared.ts";
