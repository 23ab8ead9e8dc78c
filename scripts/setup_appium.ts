/**
 * Installs Appium 3 and the UiAutomator2 driver (pinned, from npm) into Cairn's `APPIUM_HOME`
 * (`.cairn/appium/`, or `CAIRN_APPIUM_HOME`) when they are not there yet; a no-op otherwise.
 * Run by `scripts/setup.ts` before the tests; `cairn appium install` does the same by hand.
 *
 * @module
 */
import { ensureAppium } from "../drivers/android/appium_install.ts";

if (import.meta.main) {
  const install = await ensureAppium({ log: (line) => console.log(`setup: ${line}`) });
  console.log(
    `setup: appium ${install.appiumVersion} + uiautomator2 ${install.driverVersion} in ${install.home}`,
  );
}
