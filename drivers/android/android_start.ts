/**
 * How a blaze or a playback asks for an Android device: the options an HTTP body or CLI flags
 * carry (`appium`, `udid`, `appPackage`, `appActivity`, `app`), parsed once, with environment
 * fallbacks, and turned into a connected {@linkcode AndroidDriver}.
 *
 * @module
 */
import { z } from "zod";
import { AndroidDriver } from "./android_driver.ts";

/** The Android part of a start request. */
export const AndroidStart = z.strictObject({
  /** An Appium server or grid; default `CAIRN_APPIUM_URL`, else Cairn starts its own. */
  appium: z.string().url().optional(),
  /** Device serial (`adb devices`); default `CAIRN_ANDROID_UDID`, else the only device. */
  udid: z.string().min(1).optional(),
  appPackage: z.string().regex(
    /^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)+$/,
    "expected a package such as com.example.shop",
  )
    .optional(),
  appActivity: z.string().min(1).optional(),
  /** An .apk path or URL to install and launch. */
  app: z.string().min(1).optional(),
});
export type AndroidStart = z.infer<typeof AndroidStart>;

/**
 * The url a blaze opens for an Android start: `android-app://<package>/` (activated with
 * `mobile: activateApp`), or `android-app://<package>/<activity>` when an activity is given.
 *
 * @param start the parsed options
 * @returns the url, or undefined when no package is known
 * @example
 * ```ts
 * if (androidStartUrl({ appPackage: "com.example.shop" }) !== "android-app://com.example.shop/") throw new Error();
 * ```
 */
export function androidStartUrl(start: AndroidStart): string | undefined {
  if (!start.appPackage) return undefined;
  return start.appActivity
    ? `android-app://${start.appPackage}/${start.appActivity}`
    : `android-app://${start.appPackage}/`;
}

/**
 * Connects to a device as a start request asks.
 *
 * @param start the parsed options
 * @param env environment lookup (default `Deno.env.get`)
 * @returns the driver (owning the Appium server it started, if any)
 * @throws {DriverError} saying what is missing (Appium, ANDROID_HOME, adb, a device, the app)
 */
export async function connectAndroid(
  start: AndroidStart,
  env: (name: string) => string | undefined = (n) => Deno.env.get(n),
): Promise<AndroidDriver> {
  const appium = start.appium ?? env("CAIRN_APPIUM_URL");
  const udid = start.udid ?? env("CAIRN_ANDROID_UDID");
  return await AndroidDriver.connect({
    ...(appium ? { appium } : {}),
    session: {
      ...(udid ? { udid } : {}),
      ...(start.appPackage ? { appPackage: start.appPackage } : {}),
      ...(start.appActivity ? { appActivity: start.appActivity } : {}),
      ...(start.app ? { app: start.app } : {}),
    },
  });
}
