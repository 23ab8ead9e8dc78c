/**
 * The real Appium 3 server with the real UiAutomator2 driver, installed from npm into Cairn's
 * `APPIUM_HOME` (once; cached in `.cairn/appium/`). No Android device, emulator or SDK can run
 * on these machines, so the session tests prove the other half: a session request fails with
 * a one-line Cairn `DriverError` that names what is missing.
 */
import { AndroidDriver } from "../../../drivers/android/android_driver.ts";
import { ensureAppium, installedDrivers } from "../../../drivers/android/appium_install.ts";
import { AppiumServer } from "../../../drivers/android/appium_server.ts";
import { DriverError } from "../../../drivers/driver.ts";
import { DEBIAN_ANDROID_HOME } from "../../../scripts/setup_appium.ts";
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
} from "../../_fixtures/assert.ts";

const NO_SDK = ["ANDROID_HOME", "ANDROID_SDK_ROOT"];
const SESSION = { appPackage: "io.cloudgrey.the_app", appActivity: ".MainActivity" };

async function isListening(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/status`, { signal: AbortSignal.timeout(1_000) });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test("AppiumServer.start() serves /status with the uiautomator2 driver installed, stop() ends it", async () => {
  const install = await ensureAppium();
  const drivers = await installedDrivers(install);
  const ua2 = drivers.find((d) => d.name === "uiautomator2");
  assert(ua2 !== undefined, `uiautomator2 not installed: ${JSON.stringify(drivers)}`);
  assertEquals(ua2.automationName, "UiAutomator2");
  assertEquals(ua2.version, "8.7.0");
  assertEquals(ua2.installType, "npm");

  const server = await AppiumServer.start();
  try {
    const res = await fetch(`${server.url}/status`);
    const body = await res.json() as { value: { ready: boolean; build: { version: string } } };
    assertEquals(body.value.ready, true);
    assertEquals(body.value.build.version, "3.8.0");
    const log = await Deno.readTextFile(server.logFile);
    assertStringIncludes(log, "uiautomator2@8.7.0 (automationName 'UiAutomator2')");
  } finally {
    await server.stop();
  }
  assertEquals(await isListening(server.url), false);
});

Deno.test("AndroidDriver.connect() fails with a DriverError naming ANDROID_HOME when no SDK is set", async () => {
  const server = await AppiumServer.start({ unsetEnv: NO_SDK });
  try {
    const err = await assertRejects(
      () => AndroidDriver.connect({ appium: server.url, session: SESSION }),
      DriverError,
      "ANDROID_HOME is not set",
    );
    assertEquals((err as DriverError).code, "android_sdk_missing");
    assert(!err.message.includes("\n"), `not one line: ${err.message}`);
    assert(!/\bat \S+\.js:\d+/.test(err.message), `stack trace in: ${err.message}`);
  } finally {
    await server.stop();
  }
});

Deno.test("AndroidDriver.connect() fails with a DriverError naming adb when ANDROID_HOME has no platform-tools", async () => {
  const sdk = await Deno.makeTempDir({ prefix: "cairn_sdk_" });
  const server = await AppiumServer.start({
    env: { ANDROID_HOME: sdk },
    unsetEnv: ["ANDROID_SDK_ROOT"],
  });
  try {
    const err = await assertRejects(
      () => AndroidDriver.connect({ appium: server.url, session: SESSION }),
      DriverError,
      "adb was not found",
    );
    assertEquals((err as DriverError).code, "adb_missing");
    assertStringIncludes(err.message, "platform-tools");
  } finally {
    await server.stop();
    await Deno.remove(sdk, { recursive: true });
  }
});

Deno.test("AndroidDriver.connect() fails with a DriverError naming the missing device when adb finds none", async () => {
  // Debian's adb (installed by scripts/setup_appium.ts) is real; no device or emulator is.
  const adb = `${DEBIAN_ANDROID_HOME}/platform-tools/adb`;
  assert(
    await Deno.stat(adb).then(() => true, () => false),
    `${adb} is missing: run deno task setup`,
  );
  const server = await AppiumServer.start({
    env: { ANDROID_HOME: DEBIAN_ANDROID_HOME },
    unsetEnv: ["ANDROID_SDK_ROOT"],
  });
  try {
    const err = await assertRejects(
      () => AndroidDriver.connect({ appium: server.url, session: SESSION }),
      DriverError,
      "no Android device or emulator is connected",
    );
    assertEquals((err as DriverError).code, "device_missing");
    assertStringIncludes(err.message, "adb devices");
  } finally {
    await server.stop();
    // Appium started adb's server daemon: stop it, it is ours.
    await new Deno.Command(adb, { args: ["kill-server"], stdout: "null", stderr: "null" }).output();
  }
});

Deno.test("AndroidDriver.connect() without an Appium URL starts its own server and stops it when the session fails", async () => {
  const port = freePort();
  const adb = `${DEBIAN_ANDROID_HOME}/platform-tools/adb`;
  try {
    await assertRejects(
      () =>
        AndroidDriver.connect({
          session: SESSION,
          server: {
            port,
            env: { ANDROID_HOME: DEBIAN_ANDROID_HOME },
            unsetEnv: ["ANDROID_SDK_ROOT"],
          },
        }),
      DriverError,
      "no Android device or emulator is connected",
    );
  } finally {
    // Appium started adb's server daemon: stop it, it is ours.
    await new Deno.Command(adb, { args: ["kill-server"], stdout: "null", stderr: "null" }).output();
  }
  assertEquals(await isListening(`http://127.0.0.1:${port}`), false);
});

Deno.test("AndroidDriver.connect() without an Appium URL names a missing SDK before it installs or starts Appium", async () => {
  const home = await Deno.makeTempDir({ prefix: "cairn_appium_home_" });
  try {
    const port = freePort();
    const err = await assertRejects(
      () =>
        AndroidDriver.connect({
          session: SESSION,
          server: { home: `${home}/appium`, port, unsetEnv: NO_SDK },
        }),
      DriverError,
      "ANDROID_HOME is not set",
    );
    assertEquals((err as DriverError).code, "android_sdk_missing");
    assertEquals(await Deno.stat(`${home}/appium`).then(() => true, () => false), false);
    assertEquals(await isListening(`http://127.0.0.1:${port}`), false);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("AndroidDriver.connect() says Appium is unreachable when nothing listens at --appium", async () => {
  const port = freePort();
  const err = await assertRejects(
    () => AndroidDriver.connect({ appium: `http://127.0.0.1:${port}`, session: SESSION }),
    DriverError,
    "Cannot reach the WebDriver server",
  );
  assertEquals((err as DriverError).code, "appium_unreachable");
});
