/**
 * Installs what the Android tests need, when missing:
 * - Appium 3 and the UiAutomator2 driver (pinned, from npm) into Cairn's `APPIUM_HOME`
 *   (`.cairn/appium/`, or `CAIRN_APPIUM_HOME`); `cairn appium install` does the same by hand;
 * - Debian's `adb` (`/usr/lib/android-sdk/platform-tools/adb`, with apt-get; needs root, as on
 *   CI), so the real Appium server can look for a device and report that none is connected.
 *
 * Run by `scripts/setup.ts` before the tests; a no-op when everything is in place.
 *
 * @module
 */
import { ensureAppium } from "../drivers/android/appium_install.ts";

/** Where Debian's `adb` package puts the SDK layout Appium expects under `ANDROID_HOME`. */
export const DEBIAN_ANDROID_HOME = "/usr/lib/android-sdk";

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

async function apt(args: string[]): Promise<void> {
  const { code } = await new Deno.Command("apt-get", {
    args,
    env: { DEBIAN_FRONTEND: "noninteractive" },
    stdout: "null",
    stderr: "inherit",
  }).output();
  if (code !== 0) throw new Error(`apt-get ${args.join(" ")} exited with ${code}`);
}

if (import.meta.main) {
  const install = await ensureAppium({ log: (line) => console.log(`setup: ${line}`) });
  console.log(
    `setup: appium ${install.appiumVersion} + uiautomator2 ${install.driverVersion} in ${install.home}`,
  );
  if (!(await exists(`${DEBIAN_ANDROID_HOME}/platform-tools/adb`))) {
    console.log("setup: installing Debian adb with apt-get");
    try {
      await apt(["update", "-q"]);
      await apt(["install", "-y", "-q", "adb"]);
      console.log(`setup: ${DEBIAN_ANDROID_HOME}/platform-tools/adb installed`);
    } catch (err) {
      // Only the no-device test needs adb; it says so when it is missing.
      console.log(
        `setup: warning: adb not installed (${err instanceof Error ? err.message : err})`,
      );
    }
  }
}
