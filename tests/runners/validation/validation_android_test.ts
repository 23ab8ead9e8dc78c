/**
 * The validation loop on Android, through the library API (`runValidation` with an
 * `AndroidDriver`): `cairn validate` and the HTTP route launch Chromium and refuse an Android
 * session, but `runValidation` takes any driver whose platform is the trail's. No device runs
 * here: the driver talks to the STAND-IN WebDriver server (tests/_fixtures/android_standin.ts), which serves
 * a REAL corpus page source — the notification shade, three notifications each with an identical
 * "Expandir" button (id, description, class and size agree, no labelled ancestor).
 *
 * The capture taps the second one; the replays serve the shade with the button's id renamed, so
 * the captured selector misses and the step is refined. What is left to tell the buttons apart is
 * a position among identical controls, which the identity check cannot verify (a reordered shade
 * would swap them): it is never adopted, and the step ends `unstable` instead of "refined" to an
 * index that passes on whichever notification is second.
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { AndroidDriver } from "../../../drivers/android/android_driver.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { runValidation } from "../../../runners/validation/runner.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";

const SHADE = Deno.readTextFileSync(
  new URL(
    "../../../../shared/corpus/android/uiautomator_systemui_notification_shade_es.xml",
    import.meta.url,
  ),
);
/** The second notification's "Expandir" button: bounds [893,1100][1047,1328]. */
const SECOND_EXPAND = { x: 970, y: 1214 };
const STEP = "Expand the second notification";
const SESSION = { appPackage: "com.android.systemui", appActivity: ".SystemUIService" };

Deno.test("runValidation() on Android refines a control among identical ones by its row, never by an index", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-android-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const capturing = startAndroidStandin({ screens: { shade: SHADE } });
  let sessionId: string;
  try {
    const driver = await AndroidDriver.connect({ appium: capturing.url, session: SESSION });
    try {
      const s = await BlazeSession.start(driver, store, {
        url: "android-app://com.android.systemui/",
        prompt: "Expand the second notification",
        settleMs: 20,
        drivers: { appium: "stand-in" },
      });
      await s.call("step", { text: STEP });
      const tap = await s.call("tap", SECOND_EXPAND);
      assert(tap.ok, tap.error);
      await s.end("completed");
      sessionId = s.id;
    } finally {
      await driver.close();
    }
  } finally {
    await capturing.close();
  }
  const renamed = SHADE.replaceAll("android:id/expand_button", "android:id/expand");
  const replaying = startAndroidStandin({ screens: { shade: renamed } });
  const driver = await AndroidDriver.connect({ appium: replaying.url, session: SESSION });
  try {
    const progress: string[] = [];
    const state = await runValidation(driver, store, sessionId, {
      onProgress: (l) => progress.push(l),
    });
    const log = `${progress.join("\n")}\n${state.message}`;
    const final = parseTrail(state.trail, "final trail");
    assertEquals(final.config.platform, "android");
    const step = final.trail.findIndex((t) => t.step === STEP);
    // the renamed id is healed and refined to the row it lies in (its notification's text),
    // not to the second of three identical expand buttons
    assertEquals(state.finalSteps![step]!.status, "refined", log);
    assertEquals(state.status, "stable", log);
    assertStringIncludes(JSON.stringify(final.trail[step]), "childOf", state.trail);
    // No selector of the final trail picks by position.
    assert(!/"index"/.test(JSON.stringify(final)), state.trail);
    // The replays really ran on the stand-in: the driver looked the selectors up there (a row
    // anchor is resolved on the page source it read).
    assert(
      replaying.commands.some((c) => c.path === "/elements" || c.path === "/source"),
      "no lookup reached the stand-in",
    );
  } finally {
    await driver.close();
    await replaying.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

const TASKS = Deno.readTextFileSync(
  new URL("../../../../shared/corpus/android/uiautomator_google_tasks_list.xml", import.meta.url),
);
/** Google Tasks' "Add star" button of the row "Task 16": bounds [1429,336][1537,444]. */
const STAR_16 = { x: 1483, y: 390 };
const STAR = "Star Task 16";
const TASKS_SESSION = {
  appPackage: "com.google.android.apps.tasks",
  appActivity: ".ui.TaskListsActivity",
};

Deno.test("runValidation() on Android refines a control repeated in rows to its labelled row (childOf its description), not an index", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-android-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const capturing = startAndroidStandin({ screens: { tasks: TASKS } });
  let sessionId: string;
  try {
    const driver = await AndroidDriver.connect({ appium: capturing.url, session: TASKS_SESSION });
    try {
      const s = await BlazeSession.start(driver, store, {
        url: "android-app://com.google.android.apps.tasks/",
        prompt: "Star task 16",
        settleMs: 20,
        drivers: { appium: "stand-in" },
      });
      await s.call("step", { text: STAR });
      const tap = await s.call("tap", STAR_16);
      assert(tap.ok, tap.error);
      await s.end("completed");
      sessionId = s.id;
    } finally {
      await driver.close();
    }
  } finally {
    await capturing.close();
  }
  // The app renamed the button's id; every row keeps its "Task N" description.
  const renamed = TASKS.replaceAll("id/star_button", "id/star");
  const replaying = startAndroidStandin({ screens: { tasks: renamed } });
  const driver = await AndroidDriver.connect({ appium: replaying.url, session: TASKS_SESSION });
  try {
    const progress: string[] = [];
    const state = await runValidation(driver, store, sessionId, {
      onProgress: (l) => progress.push(l),
    });
    const log = `${progress.join("\n")}\n${state.message}`;
    assertEquals(state.status, "stable", log);
    const final = parseTrail(state.trail, "final trail");
    const step = final.trail.findIndex((t) => t.step === STAR);
    assertEquals(state.finalSteps![step]!.status, "refined", log);
    const tap = final.trail[step]!.recording![0]!;
    const selectors = [...(tap.selector ? [tap.selector] : []), ...(tap.selectors ?? [])];
    assertEquals(selectors[0], {
      contentDescription: "Add star",
      childOf: { contentDescription: "Task 16" },
    }, log);
    assert(selectors.every((s) => s.index === undefined), JSON.stringify(selectors));
    // The refined selector replayed onto Task 16's star: the stand-in saw a tap there.
    const taps = replaying.gestures.filter((g) => g.kind === "tap").map((g) => g.from);
    assert(taps.some((p) => p.x === STAR_16.x && p.y === STAR_16.y), JSON.stringify(taps));
  } finally {
    await driver.close();
    await replaying.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
