/**
 * Maps what Appium answers into one-line Cairn {@linkcode DriverError}s that say what is missing
 * (the Android SDK, adb, a device, the app, the UiAutomator2 driver) and how to fix it — never
 * a server stack trace.
 *
 * @module
 */
import { DriverError } from "../driver.ts";
import { W3cConnectionError, W3cError } from "./w3c_client.ts";

/** A known cause: a pattern of Appium's message, the Cairn code and the advice. */
interface Cause {
  pattern: RegExp;
  code: string;
  missing: string;
}

const SESSION_CAUSES: readonly Cause[] = [
  {
    pattern: /Neither ANDROID_HOME nor ANDROID_SDK_ROOT/i,
    code: "android_sdk_missing",
    missing:
      "ANDROID_HOME is not set: install the Android SDK platform-tools and export ANDROID_HOME (or ANDROID_SDK_ROOT) before starting Appium",
  },
  {
    pattern: /Could not find '?adb'?/i,
    code: "adb_missing",
    missing:
      "adb was not found under ANDROID_HOME: install the SDK platform-tools so that $ANDROID_HOME/platform-tools/adb exists",
  },
  {
    pattern:
      /Could not find a connected Android device|was not in the list of connected devices|No (connected )?devices? (connected|found|are connected)|device .* (not found|offline)/i,
    code: "device_missing",
    missing:
      "no Android device or emulator is connected: start an emulator or plug in a device with USB debugging on (adb devices must list it), or pass --udid",
  },
  {
    pattern: /Could not find a driver for automationName/i,
    code: "uiautomator2_missing",
    missing:
      "the Appium server has no UiAutomator2 driver: run `cairn appium install`, or `appium driver install uiautomator2` on that server",
  },
  {
    pattern:
      /(app|apk) .*(does not exist|not found|is not accessible)|Cannot (find|launch) .*activity/i,
    code: "app_missing",
    missing:
      "the app could not be found or launched: check --app, or --app-package and --app-activity",
  },
];

/**
 * What a session on this machine's devices would miss, known before Appium is installed or
 * started: the Android SDK (`ANDROID_HOME`, else `ANDROID_SDK_ROOT`) or its `platform-tools/adb`,
 * told as Appium's own refusal of the session is ({@linkcode toDriverError}).
 *
 * @param env the environment the Appium server would run with
 * @returns the error, or undefined when the SDK and adb are there
 * @example
 * ```ts
 * const e = localSdkError({});
 * if (e?.code !== "android_sdk_missing") throw new Error(e?.code);
 * ```
 */
export function localSdkError(env: Record<string, string | undefined>): DriverError | undefined {
  const sdk = env.ANDROID_HOME || env.ANDROID_SDK_ROOT;
  const code = !sdk
    ? "android_sdk_missing"
    : isFile(`${sdk}/platform-tools/adb`)
    ? undefined
    : "adb_missing";
  const cause = SESSION_CAUSES.find((c) => c.code === code);
  return cause && new DriverError(`Cannot start an Android session: ${cause.missing}`, cause.code);
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/**
 * Turns an Appium failure into a {@linkcode DriverError}.
 *
 * @param err what the client threw
 * @param doing what Cairn was doing, sentence case (`Cannot start an Android session`)
 * @returns the error to throw; unknown errors pass through unchanged
 * @example
 * ```ts
 * import { W3cError } from "./w3c_client.ts";
 * const e = toDriverError(
 *   new W3cError("unknown error", "Neither ANDROID_HOME nor ANDROID_SDK_ROOT environment variable was exported", 500, "POST /session"),
 *   "Cannot start an Android session",
 * );
 * if (e.code !== "android_sdk_missing") throw new Error(e.code);
 * ```
 */
export function toDriverError(err: unknown, doing: string): DriverError {
  if (err instanceof DriverError) return err;
  if (err instanceof W3cConnectionError) {
    return new DriverError(
      `${doing}: ${err.message} (start one with \`cairn appium start\` or pass --appium URL)`,
      "appium_unreachable",
      { cause: err },
    );
  }
  if (err instanceof W3cError) {
    if (err.command.endsWith("/session") && err.command.startsWith("POST")) {
      for (const c of SESSION_CAUSES) {
        if (c.pattern.test(err.message)) {
          return new DriverError(
            `${doing}: ${c.missing} (Appium said: ${oneLine(err.message)})`,
            c.code,
            {
              cause: err,
            },
          );
        }
      }
      return new DriverError(
        `${doing}: Appium refused the session: ${oneLine(err.message)}`,
        "session_not_created",
        {
          cause: err,
        },
      );
    }
    const code = err.error.replace(/ /g, "_");
    return new DriverError(`${doing}: ${err.error}: ${oneLine(err.message)}`, code, { cause: err });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new DriverError(`${doing}: ${oneLine(message)}`, "driver_error", { cause: err });
}

function oneLine(s: string): string {
  const line = s.replace(/\s+/g, " ").trim();
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}
