/**
 * The Android flags shared by `cairn blaze start` and `cairn replay`: which Appium server,
 * device and app, parsed once into an {@linkcode AndroidStart}.
 *
 * @module
 */
import { type CommandSpec, type ParsedArgs, str, UsageError } from "./args.ts";
import { AndroidStart } from "../drivers/android/mod.ts";

/** Flags of an Android session (spread into a command's `flags`). */
export const ANDROID_FLAGS: NonNullable<CommandSpec["flags"]> = {
  appium: {
    type: "string",
    value: "URL",
    description: "android: Appium server or grid (default CAIRN_APPIUM_URL, else Cairn starts one)",
  },
  udid: { type: "string", value: "SERIAL", description: "android: device serial (adb devices)" },
  "app-package": { type: "string", value: "PKG", description: "android: app package" },
  "app-activity": { type: "string", value: "ACT", description: "android: activity to launch" },
  app: { type: "string", value: "APK", description: "android: .apk to install and launch" },
};

/**
 * Reads the Android flags.
 *
 * @param args parsed arguments of a command that spreads {@linkcode ANDROID_FLAGS}
 * @param command the command name, for messages
 * @returns the parsed start options
 * @throws {UsageError} naming the flag that does not fit
 */
export function androidStartFromArgs(args: ParsedArgs, command: string): AndroidStart {
  const parsed = AndroidStart.safeParse({
    appium: str(args, "appium"),
    udid: str(args, "udid"),
    appPackage: str(args, "app-package"),
    appActivity: str(args, "app-activity"),
    app: str(args, "app"),
  });
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    const flag = String(i.path[0]).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    throw new UsageError(`${command}: --${flag}: ${i.message}`);
  }
  return parsed.data;
}
