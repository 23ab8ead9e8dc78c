/**
 * `cairn appium install|start|status`: Cairn's own Appium 3 server with the UiAutomator2 driver,
 * installed from npm into `.cairn/appium/` (the `APPIUM_HOME`), or a check of a server you run.
 *
 * @module
 */
import { type CommandSpec, num, type ParsedArgs, str, UsageError } from "./args.ts";
import { defaultAppiumHome, ensureAppium, installedDrivers } from "../drivers/android/mod.ts";
import { AppiumServer } from "../drivers/android/mod.ts";
import { WebDriverClient } from "../drivers/android/mod.ts";
import { toDriverError } from "../drivers/android/mod.ts";

const ACTIONS = ["install", "start", "status"] as const;

/** The command's flags and help. */
export const spec: CommandSpec = {
  name: "appium",
  summary: "Install, start or check the Appium server (UiAutomator2) for Android",
  positionals: ["ACTION"],
  flags: {
    home: {
      type: "string",
      value: "DIR",
      description:
        "APPIUM_HOME to install into and start from (default .cairn/appium, or CAIRN_APPIUM_HOME)",
    },
    port: {
      type: "integer",
      value: "PORT",
      // no 0: Cairn picks a free port when the flag is absent, and Appium's URL needs the real one
      min: 1,
      max: 65535,
      description: "Port on 127.0.0.1 for `start` (default: a free one)",
    },
    appium: {
      type: "string",
      value: "URL",
      description: "For `status`: an Appium server or grid to check instead of the local install",
    },
  },
  details: `Actions:
  install   install appium and appium-uiautomator2-driver (pinned) from npm into APPIUM_HOME
  start     start Appium on 127.0.0.1, print its URL, stop it on Ctrl-C or SIGTERM
  status    print /status of --appium URL, or the installed drivers of the local install

No Android device or emulator is needed to start the server; a session needs ANDROID_HOME,
adb and a device (see docs/android.md).`,
};

/**
 * Runs `cairn appium`.
 *
 * @param args the parsed arguments
 * @returns the exit code
 */
export async function run(args: ParsedArgs): Promise<number> {
  const action = args.positionals[0];
  if (!ACTIONS.includes(action as typeof ACTIONS[number])) {
    throw new UsageError(
      `ACTION must be one of ${ACTIONS.join(", ")}, got ${JSON.stringify(action)}`,
    );
  }
  const home = str(args, "home") ?? defaultAppiumHome();
  const log = (line: string) => console.error(line);
  if (action === "install") {
    const install = await ensureAppium({ home, log });
    const drivers = await installedDrivers(install);
    console.log(
      `appium ${install.appiumVersion} in ${install.home}; drivers: ${
        drivers.map((d) => `${d.name}@${d.version} (${d.installType})`).join(", ")
      }`,
    );
    return 0;
  }
  if (action === "status") {
    const url = str(args, "appium");
    if (url !== undefined) {
      try {
        const status = await new WebDriverClient(url, { timeoutMs: 5_000 }).status();
        console.log(JSON.stringify(status));
        return status.ready === false ? 1 : 0;
      } catch (err) {
        throw toDriverError(err, `Cannot read the status of ${url}`);
      }
    }
    const install = await ensureAppium({ home, log });
    for (const d of await installedDrivers(install)) {
      console.log(`${d.name}\t${d.version}\t${d.automationName}\t${d.installType}`);
    }
    return 0;
  }
  const port = num(args, "port");
  const server = await AppiumServer.start({ home, log, ...(port !== undefined ? { port } : {}) });
  console.log(server.url);
  const stop = Promise.withResolvers<void>();
  const onSignal = () => stop.resolve();
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  try {
    await stop.promise;
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
    await server.stop();
    log("appium: stopped");
  }
  return 0;
}
