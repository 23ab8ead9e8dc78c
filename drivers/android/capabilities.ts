/**
 * The Android session options Cairn accepts and the W3C capabilities Appium 3's UiAutomator2
 * driver reads from them.
 *
 * @module
 */
import { z } from "zod";

/** What to open on which device. Either `app` (an .apk path or URL) or `appPackage` (+ activity). */
export const AndroidSessionOptions = z.object({
  /** The device serial as `adb devices` lists it; Appium picks the only device when absent. */
  udid: z.string().min(1).optional(),
  /** Package of an installed app to launch (`com.example.shop`). */
  appPackage: z.string().min(1).optional(),
  /** Activity to launch (`.MainActivity`); Appium reads the launcher activity when absent. */
  appActivity: z.string().min(1).optional(),
  /** An .apk to install and launch. */
  app: z.string().min(1).optional(),
  /** Keep the app's data between sessions (default true: Cairn never wipes a device). */
  noReset: z.boolean().default(true),
  /** Extra capabilities passed as they are (`appium:` prefix added when a key has no vendor prefix). */
  extra: z.record(z.string(), z.unknown()).default({}),
});
export type AndroidSessionOptions = z.input<typeof AndroidSessionOptions>;

const STANDARD = new Set([
  "platformName",
  "browserName",
  "browserVersion",
  "platformVersion",
  "acceptInsecureCerts",
  "pageLoadStrategy",
  "proxy",
  "timeouts",
  "unhandledPromptBehavior",
]);

/**
 * Builds the `alwaysMatch` capabilities of an Android UiAutomator2 session.
 *
 * @param options the session options (parsed here)
 * @returns the capabilities object
 * @throws {z.ZodError} when an option has the wrong type
 * @example
 * ```ts
 * const caps = androidCapabilities({ appPackage: "com.example", appActivity: ".Main" });
 * if (caps["appium:automationName"] !== "UiAutomator2") throw new Error();
 * if (caps["appium:appPackage"] !== "com.example") throw new Error();
 * ```
 */
export function androidCapabilities(options: AndroidSessionOptions): Record<string, unknown> {
  const o = AndroidSessionOptions.parse(options);
  const caps: Record<string, unknown> = {
    platformName: "Android",
    "appium:automationName": "UiAutomator2",
    "appium:newCommandTimeout": 300,
    "appium:noReset": o.noReset,
  };
  if (o.udid !== undefined) caps["appium:udid"] = o.udid;
  if (o.app !== undefined) caps["appium:app"] = o.app;
  if (o.appPackage !== undefined) caps["appium:appPackage"] = o.appPackage;
  if (o.appActivity !== undefined) caps["appium:appActivity"] = o.appActivity;
  for (const [key, value] of Object.entries(o.extra)) {
    caps[key.includes(":") || STANDARD.has(key) ? key : `appium:${key}`] = value;
  }
  return caps;
}
