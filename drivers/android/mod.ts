/**
 * The Android driver: Appium's WebDriver protocol spoken directly (W3C client), the Appium server
 * and its install, capabilities, screen lookup over page sources and password masking.
 *
 * @example
 * ```ts
 * import { androidKeycode } from "./mod.ts";
 * if (androidKeycode("Enter") !== 66) throw new Error(String(androidKeycode("Enter")));
 * ```
 *
 * @module
 */
export * from "./android_driver.ts";
export * from "./android_start.ts";
export * from "./appium_install.ts";
export * from "./appium_server.ts";
export * from "./errors.ts";
export * from "./keycodes.ts";
export * from "./w3c_client.ts";
