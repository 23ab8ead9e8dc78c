/**
 * A trail's `longPress`, `swipe`, `back`, `wait` and `assertNotVisible` on Android, through
 * `AndroidDriver` and the STAND-IN WebDriver server (no device can run here): a long press is
 * one touch held in place, a swipe one touch dragged the way it names, back the Back key, and
 * an absent element passes `assertNotVisible` while a shown one fails it.
 */
import { AndroidDriver } from "../../../drivers/android/android_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import { assert, assertEquals, assertGreaterOrEqual } from "../../_fixtures/assert.ts";

const NAV_XML = Deno.readTextFileSync(
  new URL(
    "../../../../shared/corpus/android/uiautomator_sample_bottom_navigation.xml",
    import.meta.url,
  ),
);
const DASH_ID = "com.example.my_sample_application:id/navigation_dashboard";
const DASH_CENTER = { x: 540, y: 2264 };

Deno.test("an Android trail long-presses, swipes, goes back, waits and asserts absence (stand-in)", async () => {
  const standin = startAndroidStandin({ screens: { app: NAV_XML } });
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_gestures_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    const trail = parseTrail(
      `config: { platform: android }\ntrail:\n  - step: s\n    recording:\n` +
        [
          `- longPress: { id: "${DASH_ID}" }`,
          `- swipe: left`,
          `- back`,
          `- wait: "50"`,
          `- assertNotVisible: { id: "com.example.my_sample_application:id/gone" }`,
          `- assertNotVisible: { id: "${DASH_ID}" }`,
        ].map((l) => `      ${l}`).join("\n") + "\n",
    );
    const report = await runPlayback(driver, store, trailToPlan(trail), {
      locateWaitMs: 0,
      settleAfterMs: 0,
      // roomy: the last assertion must fail as assertion_failed, not run out of time on a busy
      // machine (1.5 s did once, under a full parallel test run)
      actionTimeoutMs: 5_000,
    });
    assertEquals(report.results.map((r) => [r.action, r.status, r.error_code]), [
      ["long_press", "ok", undefined],
      ["swipe", "ok", undefined],
      ["back", "ok", undefined],
      ["wait", "ok", undefined],
      ["assert_not_visible", "ok", undefined],
      ["assert_not_visible", "failed", "assertion_failed"],
    ]);
    assertEquals(report.status, "failed");
    // the long press: one touch at the centre, held 1 s
    const posts = standin.commands.filter((c) => c.path === "/actions" && c.method === "POST");
    const press = (posts[0]!.body!.actions as { actions: Record<string, unknown>[] }[])[0]!;
    assertEquals(press.actions[0], {
      type: "pointerMove",
      duration: 0,
      x: DASH_CENTER.x,
      y: DASH_CENTER.y,
      origin: "viewport",
    });
    const pause = press.actions.find((a) => a.type === "pause")!;
    assertGreaterOrEqual(Number(pause.duration), 1_000);
    // the swipe: right to left through the middle of the screen
    const swipes = standin.gestures.filter((g) => g.kind === "swipe");
    assertEquals(swipes.length, 1);
    assert(swipes[0]!.from.x > swipes[0]!.to.x, JSON.stringify(swipes[0]));
    assertEquals(swipes[0]!.from.y, swipes[0]!.to.y);
    // back: the Back key (keycode 4)
    const keys = standin.commands.filter((c) => c.body?.script === "mobile: pressKey");
    assertEquals(keys.map((k) => (k.body!.args as { keycode: number }[])[0]!.keycode), [4]);
  } finally {
    await driver.close();
    store.close();
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn replay refuses an Android trail with a hover before anything starts, naming the action and step", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_hover_" });
  try {
    const file = `${dir}/hover.trail.yaml`;
    await Deno.writeTextFile(
      file,
      "config: { platform: android }\ntrail:\n  - step: Open the menu\n    recording:\n" +
        "      - tap: { id: settings }\n      - hover: { id: menu }\n",
    );
    const res = await cairn(["replay", file, "--db", `${dir}/cairn.db`]);
    assertEquals(res.code, 2, res.stderr);
    assertEquals(
      res.stderr.trim(),
      `cairn replay: ${file}: action 1 (step "Open the menu"): a hover cannot be played on android: a touch screen has no mouse`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
