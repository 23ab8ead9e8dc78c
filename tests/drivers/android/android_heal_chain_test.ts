/**
 * The chain check on Android, through the playback runner, `AndroidDriver` and the STAND-IN
 * WebDriver server (no device can run here) serving a real UiAutomator screen of the corpus: a
 * trail's chain heals in order and reports its level; when the resource id now names another
 * tab than the content description does, the tap is `ambiguous` and nothing is tapped.
 */
import { AndroidDriver } from "../../../drivers/android/android_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";

const NAV_XML = Deno.readTextFileSync(
  new URL(
    "../../../../shared/corpus/android/uiautomator_sample_bottom_navigation.xml",
    import.meta.url,
  ),
);
const PKG = "com.example.my_sample_application:id/";

/** The Dashboard tab's chain: its resource id, then its content description. */
const TRAIL = parseTrail(`config:
  platform: android
trail:
  - step: Open the dashboard
    recording:
      - tap:
          selectors:
            - { id: "${PKG}navigation_dashboard" }
            - { contentDescription: Dashboard }
`);

async function replayOn(xml: string) {
  const standin = startAndroidStandin({ screens: { app: xml } });
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_heal_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    const report = await runPlayback(driver, store, trailToPlan(TRAIL), {
      locateWaitMs: 0,
      settleAfterMs: 0,
    });
    const taps = standin.gestures.filter((g) => g.kind === "tap").map((g) => g.from);
    return { report, taps };
  } finally {
    await driver.close();
    store.close();
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("on Android a chain heals in order, reporting its level", async () => {
  const renamed = NAV_XML.replace(`${PKG}navigation_dashboard`, `${PKG}nav_item_2`);
  const { report, taps } = await replayOn(renamed);
  const tap = report.results[0]!;
  assertEquals([tap.status, tap.selector_used, tap.healed_level, tap.healed_selector], [
    "healed",
    "content_description",
    2,
    "~Dashboard",
  ]);
  assertEquals(taps, [{ x: 540, y: 2264 }]);
});

Deno.test("on Android an id that now names another tab than the content description: ambiguous, nothing tapped", async () => {
  // the ids of Home and Dashboard swapped in a release; the descriptions stayed
  const swapped = NAV_XML.replace(`${PKG}navigation_home`, "HOME")
    .replace(`${PKG}navigation_dashboard`, `${PKG}navigation_home`)
    .replace("HOME", `${PKG}navigation_dashboard`);
  const { report, taps } = await replayOn(swapped);
  const tap = report.results[0]!;
  assertEquals([tap.status, tap.error_code], ["failed", "ambiguous"]);
  assertStringIncludes(tap.error!, `id=${PKG}navigation_dashboard and ~Dashboard`);
  assertEquals(taps, []);
  // the screen as recorded: the description confirms the id, the tap lands on Dashboard
  const same = await replayOn(NAV_XML);
  assertEquals(same.report.results[0]!.status, "ok");
  assertEquals(same.taps, [{ x: 540, y: 2264 }]);
});

Deno.test("on Android a key press with a text field's selector taps the field, then presses the key", async () => {
  const xml = Deno.readTextFileSync(
    new URL(
      "../../../../shared/corpus/android/uiautomator_wdio_demo_reactnative_login.xml",
      import.meta.url,
    ),
  );
  const standin = startAndroidStandin({ screens: { app: xml } });
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_key_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    const trail = parseTrail(`config:
  platform: android
trail:
  - step: Submit the password
    recording:
      - keyPress:
          key: Enter
          selectors:
            - { contentDescription: input-password }
            - { className: android.widget.EditText, index: 1 }
`);
    const report = await runPlayback(driver, store, trailToPlan(trail), {
      locateWaitMs: 0,
      settleAfterMs: 0,
    });
    const press = report.results[0]!;
    assertEquals([press.status, press.selector_used], ["ok", "content_description"]);
    // the password field's centre, [180,1033][1000,1153], then the Enter key (66)
    assertEquals(standin.gestures.filter((g) => g.kind === "tap").map((g) => g.from), [
      { x: 590, y: 1093 },
    ]);
    const keys = standin.commands.filter((c) => c.body?.script === "mobile: pressKey");
    assertEquals(keys.map((c) => c.body!.args), [[{ keycode: 66 }]]);
  } finally {
    await driver.close();
    store.close();
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
});
