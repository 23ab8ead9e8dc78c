/**
 * Blazing an Android app through `BlazeSession` + `AndroidDriver` on the STAND-IN WebDriver
 * server (no device can run here) that serves real corpus page sources and navigates like the
 * app would; the capture lands in a real SQLite event log and the optimizer projects it into a
 * trail whose selectors are the screens' resource ids and content descriptions.
 */
import { AndroidDriver } from "../../../drivers/android/android_driver.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { projectSessionTrail } from "../../../engine/optimizer/trail_projection.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { AndroidScreenLookup } from "../../../drivers/android/screen_lookup.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { type AndroidStandin, startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";

const CORPUS = new URL("../../../../shared/corpus/android/", import.meta.url);
const LOGIN = Deno.readTextFileSync(new URL("uiautomator_wdio_demo_reactnative_login.xml", CORPUS));
const NAV = Deno.readTextFileSync(new URL("uiautomator_sample_bottom_navigation.xml", CORPUS));

/** Centers of elements of the corpus screens (from their bounds). */
const EMAIL = { x: 590, y: 853 }; // EditText content-desc input-email [180,793][1000,913]
const PASSWORD = { x: 590, y: 1093 }; // EditText content-desc input-password [180,1033][1000,1153]
const LOGIN_BUTTON = { x: 539, y: 1514 }; // ViewGroup content-desc button-LOGIN [277,1449][802,1580]
const DASHBOARD = { x: 540, y: 2263 }; // FrameLayout id navigation_dashboard [360,2190][720,2337]

/** Nodes matching every property of a trail selector (id, contentDescription, text, className). */
function matchSelector(lookup: AndroidScreenLookup, sel: Record<string, unknown>): number[] {
  const ui = (s: string) => JSON.stringify(s);
  const sets: number[][] = [];
  if (typeof sel.id === "string") sets.push(lookup.find({ using: "id", value: sel.id }));
  if (typeof sel.contentDescription === "string") {
    sets.push(lookup.find({ using: "accessibility id", value: sel.contentDescription }));
  }
  if (typeof sel.text === "string") {
    sets.push(
      lookup.find({
        using: "-android uiautomator",
        value: `new UiSelector().text(${ui(sel.text)})`,
      }),
    );
  }
  if (typeof sel.className === "string") {
    sets.push(
      lookup.find({
        using: "-android uiautomator",
        value: `new UiSelector().className(${ui(sel.className)})`,
      }),
    );
  }
  assert(sets.length > 0, `no Android property in ${JSON.stringify(sel)}`);
  return sets.reduce((a, b) => a.filter((i) => b.includes(i)));
}

/** The app: the LOGIN button of the login screen leads to the home screen's bottom navigation. */
function app(): AndroidStandin {
  return startAndroidStandin({
    screens: { login: LOGIN, home: NAV },
    onTap: (_p, hit, screen) => {
      for (let n = hit; n; n = n.parent) {
        if (screen === "login" && n.attrs["content-desc"] === "button-LOGIN") return "home";
      }
      return undefined;
    },
  });
}

Deno.test("a blaze on Android records the capture, optimizes to resource ids and content descriptions, and replays", async () => {
  const standin = app();
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_blaze_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await AndroidDriver.connect({
    appium: standin.url,
    session: { appPackage: "com.wdiodemoapp", appActivity: ".MainActivity" },
  });
  try {
    const session = await BlazeSession.start(driver, store, {
      url: "android-app://com.wdiodemoapp/",
      prompt: "Log in and open the dashboard",
      settleMs: 20,
      drivers: { appium: "stand-in" },
    });
    const snap = await session.call("snapshot", {});
    assertStringIncludes(snap.output, "EditText");
    await session.call("step", { text: "Log in with the test account" });
    for (
      const [tool, params] of [
        ["type", { ...EMAIL, text: "alice@example.com" }],
        ["type", { ...PASSWORD, text: "s3cret-pass" }],
        ["tap", LOGIN_BUTTON],
      ] as const
    ) {
      const r = await session.call(tool, params);
      assert(r.ok, `${tool}: ${r.error}`);
    }
    assertEquals(standin.screen(), "home");
    await session.call("step", { text: "Open the dashboard" });
    const tap = await session.call("tap", DASHBOARD);
    assert(tap.ok, tap.error);
    await session.end("completed");

    // What the device received: the typed text went into the focused EditTexts.
    assertEquals(standin.typed.map((t) => t.text), ["alice@example.com", "s3cret-pass"]);

    // The capture: platform android, screens stored as the raw UiAutomator dumps.
    const events = [];
    for await (const e of store.readStream(`session-${session.id}`)) events.push(e);
    const started = events.find((e) => e.type === "SessionStarted")!.data as {
      platform: string;
      viewport: { width: number; height: number };
    };
    assertEquals(started.platform, "android");
    assertEquals(started.viewport, { width: 1080, height: 2424 });
    const screens = events.filter((e) => e.type === "ScreenCaptured").map((e) =>
      e.data as { format: string; hierarchy: { hash: string } }
    );
    assert(screens.every((s) => s.format === "uiautomator-dump"), JSON.stringify(screens));
    const stored = new Set<string>();
    for (const s of screens) {
      stored.add(new TextDecoder().decode((await store.getBlob(s.hierarchy.hash)).bytes));
    }
    // The login screen as served before each action: as loaded, with the email typed, then
    // with the password typed too (Android dumps it masked, one bullet a character: stored as
    // a fixed `[redacted]`, which shows no length).
    assertEquals(stored.size, 4);
    assert(stored.has(LOGIN) && stored.has(NAV), "the corpus screens are stored as served");
    assertEquals([...stored].filter((x) => x.includes('text="alice@example.com"')).length, 2);
    assert([...stored].some((x) => /text="\[redacted\]"[^>]*password="true"/.test(x)));
    assert(![...stored].some((x) => x.includes("\u2022")), "a masked password was stored");
    assert(
      ![...stored].some((x) => x.includes("s3cret-pass")),
      "a password reached a stored screen",
    );
    const kinds = events.filter((e) => e.type === "ActionPerformed").map((e) =>
      (e.data as { kind: string }).kind
    );
    assertEquals(kinds, ["inputText", "inputText", "tap", "tap"]);

    // The optimized trail: content descriptions where the resource id is shared, ids elsewhere.
    const { trail, yaml } = await projectSessionTrail(store, session.id);
    const actions = trail.trail.flatMap((s) => s.recording ?? []);
    const primary = actions.map((a) => a.selector ?? a.selectors?.[0]);
    assertEquals(primary[2], { contentDescription: "button-LOGIN" });
    assertEquals(primary[3], { id: "com.example.my_sample_application:id/navigation_dashboard" });
    // The two EditTexts share one resource id: each selector must still pick exactly its field
    // on the captured login screen, by the corpus's id or content description.
    const login = new AndroidScreenLookup(parseHierarchy(LOGIN));
    for (const [i, desc] of [[0, "input-email"], [1, "input-password"]] as const) {
      const sel = primary[i] as Record<string, unknown>;
      assert(
        sel.id === "RNE__Input__text-input" || sel.contentDescription === desc,
        JSON.stringify(sel),
      );
      const hits = matchSelector(login, sel);
      assertEquals(hits.map((n) => login.table.node(n).contentDescription), [desc]);
    }
    assertStringIncludes(yaml, "platform: android");

    // The trail replays on a fresh run of the app (a new stand-in at the login screen).
    const replayApp = app();
    const replayDriver = await AndroidDriver.connect({ appium: replayApp.url });
    try {
      const report = await runPlayback(replayDriver, store, trailToPlan(trail), {
        memory: { password: "s3cret-pass" }, // a password slot is never written to the trail
        locateWaitMs: 0,
        settleAfterMs: 0,
      });
      assertEquals(report.status, "completed", JSON.stringify(report.results));
      assertEquals(report.actions_failed, 0);
      assertEquals([report.results[0]!.action, report.results[0]!.error], ["navigate", undefined]);
      assertEquals(replayApp.typed.map((t) => t.text), ["alice@example.com", "s3cret-pass"]);
      assertEquals(replayApp.screen(), "home");
      const lookups = replayApp.commands.filter((c) => c.path === "/elements").map((c) =>
        `${c.body!.using}=${c.body!.value}`
      );
      assert(lookups.includes("accessibility id=button-LOGIN"), lookups.join("\n"));
      assert(
        lookups.includes("id=com.example.my_sample_application:id/navigation_dashboard"),
        lookups.join("\n"),
      );
      assertEquals(replayApp.gestures.filter((g) => g.kind === "tap").at(-1)!.from, {
        x: 540,
        y: 2264,
      });
    } finally {
      await replayDriver.close();
      await replayApp.close();
    }
  } finally {
    await driver.close();
    store.close();
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
});
