/**
 * Drivers: the `Driver` interface every platform implements (snapshot, act, settle, screenshot)
 * and what all drivers share: the navigation guard, deadlines, and the scrubber that keeps typed
 * secrets out of what is stored.
 *
 * @example
 * ```ts
 * import { unsafeNavigation } from "./mod.ts";
 * if (unsafeNavigation("https://example.test/") !== undefined) throw new Error();
 * if (unsafeNavigation("file:///etc/passwd") === undefined) throw new Error();
 * ```
 *
 * @module
 */
export * from "./driver.ts";
export * from "./navigation_guard.ts";
export * from "./with_deadline.ts";
export * from "./secret_scrubber.ts";
