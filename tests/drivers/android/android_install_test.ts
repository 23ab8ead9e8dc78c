/**
 * The Appium install's guard rails, without the network: the pinned install is found in place,
 * and a concurrent install's lock makes a second one wait, then fail with a clear message.
 */
import {
  APPIUM_VERSION,
  ensureAppium,
  findAppium,
  UIAUTOMATOR2_VERSION,
} from "../../../drivers/android/appium_install.ts";
import { DriverError } from "../../../drivers/driver.ts";
import { assertEquals, assertRejects } from "../../_fixtures/assert.ts";

Deno.test("findAppium() reads the pinned versions in place and ignores other versions", async () => {
  const home = await Deno.makeTempDir({ prefix: "cairn_appium_home_" });
  try {
    const pkg = (name: string, version: string) =>
      Deno.mkdir(`${home}/node_modules/${name}`, { recursive: true }).then(() =>
        Deno.writeTextFile(`${home}/node_modules/${name}/package.json`, JSON.stringify({ version }))
      );
    await pkg("appium", APPIUM_VERSION);
    await pkg("appium-uiautomator2-driver", "7.0.0");
    assertEquals(await findAppium(home), undefined);
    await pkg("appium-uiautomator2-driver", UIAUTOMATOR2_VERSION);
    const found = await findAppium(home);
    assertEquals(found?.main, `${home}/node_modules/appium/index.js`);
    assertEquals(await ensureAppium({ home }), found); // in place: no npm run
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("ensureAppium() waits on another install's lock, then fails naming it", async () => {
  const parent = await Deno.makeTempDir({ prefix: "cairn_appium_lock_" });
  const home = `${parent}/appium`;
  await Deno.mkdir(`${home}.lock`);
  try {
    const started = performance.now();
    await assertRejects(
      () => ensureAppium({ home, lockTimeoutMs: 600 }),
      DriverError,
      `${home}.lock is held by another install`,
    );
    assertEquals(performance.now() - started >= 500, true);
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});
