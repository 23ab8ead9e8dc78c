/**
 * Drivers: the `Driver` interface every platform implements (snapshot, act, settle, screenshot) and what all drivers share: the navigation guard and deadlines.
 *
 * @module
 */
export * from "./driver.ts";
export * from "./navigation_guard.ts";
export * from "./with_deadline.ts";
