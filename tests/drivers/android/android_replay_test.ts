/**
 * Replaying Android actions through the playback runner, `AndroidDriver` and the STAND-IN
 * WebDriver server (no device can run here), with a real SQLite event store: the W3C commands
 * the Android cascade sends, healing from id to content-desc to text when the stand-in serves
 * a changed screen, and the coordinate fallback scaled by screen size.
 */
import { AndroidDriver } from "../../../drivers/android/android_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import type { PlaybackPlan } from "../../../engine/playback/actions.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { maestroToPlan } from "../../../engine/playback/from_maestro.ts";
import { parseMaestroFlow } from "../../../engine/formats/maestro_flow.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import type { Screen, UiNode } from "../../../engine/screens/ui_node.ts";
import { walk } from "../../../engine/screens/ui_node.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { type AndroidStandin, startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";

const NAV_XML = Deno.readTextFileSync(
  new URL(
    "../../../../shared/corpus/android/uiautomator_sample_bottom_navigation.xml",
    import.meta.url,
  ),
);
const DASH_ID = "com.example.my_sample_application:id/navigation_dashboard";
/** The Dashboard tab of the corpus screen: [360,2190][720,2337]. */
const DASH_CENTER = { x: 540, y: 2264 };

/** The app after an update: the tab's resource id renamed. */
const RENAMED_ID = NAV_XML.replace(
  `resource-id="${DASH_ID}"`,
  `resource-id="com.example.my_sample_application:id/nav_item_2"`,
);
/** …and its content description dropped too: only the label's text is left. */
const NO_DESC = RENAMED_ID.replace('content-desc="Dashboard"', 'content-desc=""');
/**
 * …and the page text reads "Dashboard" too, on a device of half the resolution: the text is
 * ambiguous, so only coordinates are left, and the tab at the point still shows "Dashboard".
 */
const HALF_SIZE = NO_DESC.replace(
  'text="This is notifications Fragment"',
  'text="Dashboard"',
).replace(
  /\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]/g,
  (_, a, b, c, d) => `[${Number(a) / 2},${Number(b) / 2}][${Number(c) / 2},${Number(d) / 2}]`,
);

function plan(): PlaybackPlan {
  return {
    source: { kind: "actions" },
    platform: "android",
    viewport: { width: 1080, height: 2400 },
    selectorMode: "adaptive",
    actions: [{
      type: "click",
      label: "Open the dashboard",
      target: {
        id: DASH_ID,
        contentDescription: "Dashboard",
        text: "Dashboard",
        point: { x: 540, y: 2263 },
      },
    }],
  };
}

async function replayOn(xml: string) {
  const standin = startAndroidStandin({ screens: { app: xml } });
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_replay_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    const report = await runPlayback(driver, store, plan(), { locateWaitMs: 0, settleAfterMs: 0 });
    const events = [];
    for await (const e of store.readStream(`playback-${report.playback_id}`)) events.push(e);
    return { report, standin, events };
  } finally {
    await driver.close();
    store.close();
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function lookups(standin: AndroidStandin): string[] {
  return standin.commands.filter((c) => c.path === "/elements").map((c) =>
    `${c.body!.using}=${c.body!.value}`
  );
}

function taps(standin: AndroidStandin) {
  return standin.gestures.filter((g) => g.kind === "tap").map((g) => g.from);
}

Deno.test("runPlayback() on Android finds by resource id and taps the element's center with a touch pointer", async () => {
  const { report, standin, events } = await replayOn(NAV_XML);
  assertEquals(report.status, "completed");
  assertEquals(report.results.map((r) => [r.status, r.selector_used]), [["ok", "id"]]);
  assertEquals(lookups(standin)[0], `id=${DASH_ID}`);
  const actions = standin.commands.find((c) => c.path === "/actions" && c.method === "POST")!;
  const seq = (actions.body!.actions as { parameters: unknown; actions: unknown[] }[])[0]!;
  assertEquals(seq.parameters, { pointerType: "touch" });
  assertEquals(seq.actions.slice(0, 2), [
    { type: "pointerMove", duration: 0, x: DASH_CENTER.x, y: DASH_CENTER.y, origin: "viewport" },
    { type: "pointerDown", button: 0 },
  ]);
  assertEquals(taps(standin), [DASH_CENTER]);
  const types = events.map((e) => e.type);
  assertEquals(types[0], "PlaybackStarted");
  assertEquals(types.at(-1), "PlaybackCompleted");
  const resolved = events.find((e) => e.type === "PlaybackActionResolved")!.data as {
    strategy: string;
    healed: boolean;
  };
  assertEquals([resolved.strategy, resolved.healed], ["id", false]);
});

Deno.test("runPlayback() on Android heals from id to content-desc when the resource id changed", async () => {
  const { report, standin } = await replayOn(RENAMED_ID);
  assertEquals(report.results[0]!.status, "healed");
  assertEquals(
    report.results[0]!.healed_selector ?? report.results[0]!.selector_used,
    "~Dashboard",
  );
  assertEquals(report.actions_healed, 1);
  assertEquals(lookups(standin).slice(0, 2), [`id=${DASH_ID}`, "accessibility id=Dashboard"]);
  assertEquals(taps(standin), [DASH_CENTER]);
});

Deno.test("runPlayback() on Android heals from id to content-desc to text when both changed", async () => {
  const { report, standin } = await replayOn(NO_DESC);
  assertEquals(report.results[0]!.status, "healed");
  assertEquals(report.results[0]!.healed_selector, 'text="Dashboard"');
  assertEquals(report.results[0]!.tried?.map((t) => [t.strategy, t.matches]).slice(0, 3), [
    ["id", 0],
    ["content_description", 0],
    ["text", 1],
  ]);
  assertEquals(lookups(standin).slice(0, 3), [
    `id=${DASH_ID}`,
    "accessibility id=Dashboard",
    '-android uiautomator=new UiSelector().text("Dashboard")',
  ]);
  // The label "Dashboard" is [458,2277][622,2320]: its center.
  assertEquals(taps(standin), [{ x: 540, y: 2299 }]);
});

Deno.test("runPlayback() on Android falls back to the recorded point scaled to the device's screen size", async () => {
  const { report, standin } = await replayOn(HALF_SIZE);
  const result = report.results[0]!;
  assertEquals(result.status, "healed");
  assertEquals([result.selector_used, result.healed_selector], ["coordinates", "xy=270,1132"]);
  // Recorded (540, 2263) on 1080x2400; the device is 540x1200.
  assertEquals(taps(standin), [{ x: 270, y: 1132 }]);
  assert(
    report.warnings.some((w) => w.startsWith("viewport_mismatch")),
    JSON.stringify(report.warnings),
  );
});

Deno.test("runPlayback() on Android does not tap a reworded tab by its point: position never overrules identity", async () => {
  const label =
    'resource-id="com.example.my_sample_application:id/navigation_bar_item_small_label_view"';
  const reworded = HALF_SIZE.replace(`text="Dashboard" ${label}`, `text="Overview" ${label}`);
  const { report, standin } = await replayOn(reworded);
  assertEquals(report.results[0]!.status, "failed");
  assertEquals(report.results[0]!.error_code, "selector_not_found");
  assertEquals(taps(standin), []);
});

Deno.test("runPlayback() on Android reads, asserts, presses keys and honours on_error stop like the web", async () => {
  const standin = startAndroidStandin({ screens: { app: NAV_XML } });
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_replay_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await AndroidDriver.connect({ appium: standin.url });
  const TEXT_ID = "com.example.my_sample_application:id/text_notifications";
  try {
    const report = await runPlayback(driver, store, {
      source: { kind: "actions" },
      platform: "android",
      actions: [
        { type: "read_text", target: { id: TEXT_ID }, storeAs: "message" },
        { type: "assert_text", target: { id: TEXT_ID }, expected: "{{message}}" },
        {
          type: "assert_text",
          target: { id: TEXT_ID },
          expectedPattern: "^This is \\w+ Fragment$",
        },
        { type: "key_press", key: "Back" },
        { type: "click", target: { id: "com.example.my_sample_application:id/gone" } },
        { type: "click", target: { id: DASH_ID } },
      ],
    }, { onError: "stop", locateWaitMs: 0, settleAfterMs: 0 });
    assertEquals(report.status, "failed");
    assertEquals(report.results.map((r) => [r.action, r.status, r.error_code]), [
      ["read_text", "ok", undefined],
      ["assert_text", "ok", undefined],
      ["assert_text", "ok", undefined],
      ["key_press", "ok", undefined],
      ["click", "failed", "selector_not_found"],
    ]); // stop: the last click never runs
    assertEquals([report.actions_total, report.actions_failed], [6, 1]);
    assertEquals(report.results[0]!.value, "This is notifications Fragment");
    const keys = standin.commands.filter((c) => c.body?.script === "mobile: pressKey");
    assertEquals(keys.map((c) => c.body!.args), [[{ keycode: 4 }]]);
    assertEquals(taps(standin), []);
  } finally {
    await driver.close();
    store.close();
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
});

const CORPUS = new URL("../../../../shared/corpus/android/", import.meta.url);
const LOGIN_XML = Deno.readTextFileSync(
  new URL("uiautomator_wdio_demo_reactnative_login.xml", CORPUS),
);
const TASKS_XML = Deno.readTextFileSync(new URL("uiautomator_google_tasks_list.xml", CORPUS));

/** The login screen of the next app version: a "Name" field above Email, with the same id. */
function withNameField(xml: string): string {
  const email = /<node index="1" text="Email"[^>]*\/>/.exec(xml)![0];
  const name = email.replace('text="Email"', 'text="Name"')
    .replace('content-desc="input-email"', 'content-desc="input-name"')
    .replace('hint="Email"', 'hint="Name"')
    .replace('bounds="[180,793][1000,913]"', 'bounds="[180,640][1000,760]"');
  return xml.replace(email, `${name}${email}`);
}

/** What `optimize` wrote for the wdio demo's login: the unique content-desc first. */
const LOGIN_TRAIL = `config:
  id: wdio-login
  platform: android
  selectorMode: adaptive
  memory:
    email: bob@example.com
    password: s3cretPass!
trail:
  - step: Log in
    recording:
      - inputText:
          selectors:
            - contentDescription: "input-email"
            - id: "RNE__Input__text-input"
              index: 0
            - testId: "RNE__Input__text-input"
              index: 0
            - xy: [ 590, 853 ]
              viewport: { width: 1080, height: 2424 }
          text: "{{email}}"
      - inputText:
          selectors:
            - contentDescription: "input-password"
            - id: "RNE__Input__text-input"
              index: 1
            - testId: "RNE__Input__text-input"
              index: 1
            - xy: [ 590, 1093 ]
              viewport: { width: 1080, height: 2424 }
          text: "{{password}}"
`;

/** Replays a plan on the stand-in serving `xml`; returns the report and the screen after it. */
async function replayPlan(xml: string, p: PlaybackPlan, options: { locateWaitMs?: number } = {}) {
  const standin = startAndroidStandin({ screens: { app: xml } });
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_replay_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    const report = await runPlayback(driver, store, p, {
      locateWaitMs: 0,
      settleAfterMs: 0,
      ...options,
    });
    const { screen } = await driver.snapshot();
    return { report, standin, screen };
  } finally {
    await driver.close();
    store.close();
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function byDesc(screen: Screen, desc: string): UiNode | undefined {
  for (const [n] of walk(screen.root)) if (n.contentDescription === desc) return n;
  return undefined;
}

Deno.test("runPlayback() on Android follows the trail's selector order: a field added above Email does not take the email", async () => {
  const plan = trailToPlan(parseTrail(LOGIN_TRAIL));
  const { report, standin, screen } = await replayPlan(withNameField(LOGIN_XML), plan);
  assertEquals(report.results.map((r) => [r.status, r.selector_used, r.description]), [
    ["ok", "content_description", "type ~input-email"],
    ["ok", "content_description", "type ~input-password"],
  ]);
  assertEquals(lookups(standin), [
    "accessibility id=input-email",
    "accessibility id=input-password",
  ]);
  // Email [180,793][1000,913] and Password [180,1033][1000,1153] were tapped, not Name.
  assertEquals(taps(standin), [{ x: 590, y: 853 }, { x: 590, y: 1093 }]);
  assertEquals(byDesc(screen, "input-name")?.text, "Name");
  assertEquals(byDesc(screen, "input-email")?.text, "bob@example.com");
});

Deno.test("runPlayback() on Android uses an indexed id only when the selectors before it fail, and reports it healed", async () => {
  const plan = trailToPlan(parseTrail(LOGIN_TRAIL));
  const noDesc = LOGIN_XML.replace('content-desc="input-email"', 'content-desc=""')
    .replace('content-desc="input-password"', 'content-desc=""');
  const { report, standin, screen } = await replayPlan(noDesc, plan);
  assertEquals(report.results.map((r) => [r.status, r.healed_selector]), [
    ["healed", "id=RNE__Input__text-input[0]"],
    ["healed", "id=RNE__Input__text-input[1]"],
  ]);
  assertEquals(report.actions_healed, 2);
  assertEquals(lookups(standin).slice(0, 2), [
    "accessibility id=input-email",
    "id=RNE__Input__text-input",
  ]);
  assertEquals(taps(standin), [{ x: 590, y: 853 }, { x: 590, y: 1093 }]);
  const fields = [...walk(screen.root)].map(([n]) => n).filter((n) =>
    n.resourceId === "RNE__Input__text-input"
  );
  assertEquals(fields[0]?.text, "bob@example.com");
});

Deno.test("runPlayback() on Android plays childOf selectors as childSelector lookups on the parent's descendants (Google Tasks)", async () => {
  const trail = `config:
  id: tasks
  platform: android
trail:
  - step: Star task 5
    recording:
      - tap:
          id: "com.google.android.apps.tasks:id/star_button"
          childOf:
            contentDescription: "Task 5"
  - step: Complete task 4
    recording:
      - tap:
          id: "com.google.android.apps.tasks:id/tasks_item_completed_check"
          childOf:
            contentDescription: "Task 4"
`;
  const { report, standin } = await replayPlan(TASKS_XML, trailToPlan(parseTrail(trail)));
  assertEquals(report.results.map((r) => [r.status, r.description]), [
    ["ok", "click ~Task 5 >> id=com.google.android.apps.tasks:id/star_button"],
    ["ok", "click ~Task 4 >> id=com.google.android.apps.tasks:id/tasks_item_completed_check"],
  ]);
  assertEquals(lookups(standin), [
    '-android uiautomator=new UiSelector().description("Task 5").childSelector(new UiSelector().resourceId("com.google.android.apps.tasks:id/star_button"))',
    '-android uiautomator=new UiSelector().description("Task 4").childSelector(new UiSelector().resourceId("com.google.android.apps.tasks:id/tasks_item_completed_check"))',
  ]);
  // Task 5's star [1429,1656][1537,1764]; Task 4's check box [90,1803][144,1857].
  assertEquals(taps(standin), [{ x: 1483, y: 1710 }, { x: 117, y: 1830 }]);
});

Deno.test("runPlayback() on Android plays a hand-written text-only childOf as a row anchor: the control in the row showing that text (Google Tasks)", async () => {
  const trail = `config:
  id: tasks-rows
  platform: android
trail:
  - step: Star task 5
    recording:
      - tap:
          contentDescription: "Add star"
          childOf:
            text: "Task 5"
  - step: Star task 4
    recording:
      - tap:
          id: "com.google.android.apps.tasks:id/star_button"
          childOf:
            text: "  task 4 "
  - step: Star a task that is not there
    recording:
      - tap:
          contentDescription: "Add star"
          childOf:
            text: "Task 99"
`;
  const { report, standin } = await replayPlan(TASKS_XML, trailToPlan(parseTrail(trail)));
  assertEquals(report.results.map((r) => [r.status, r.description]), [
    ["ok", 'click row("Task 5") >> ~Add star'],
    ["ok", 'click row("  task 4 ") >> id=com.google.android.apps.tasks:id/star_button'],
    ["failed", 'click row("Task 99") >> ~Add star'],
  ]);
  assertEquals(report.results[2]!.error_code, "selector_not_found");
  // Task 5's star [1429,1656][1537,1764], Task 4's [1429,1776][1537,1884]; never the first star.
  assertEquals(taps(standin), [{ x: 1483, y: 1710 }, { x: 1483, y: 1830 }]);
  // Answered over the page source: no unanchored lookup of the repeated star reached the device.
  assertEquals(lookups(standin), []);
});

Deno.test("runPlayback() on Android plays a Maestro tapOn's text-only childOf as the same row anchor", async () => {
  const flow = "appId: com.google.android.apps.tasks\n---\n" +
    "- tapOn:\n    text: Task 7\n    childOf:\n      text: Task 7\n" +
    "- tapOn:\n    id: 'com\\.google\\.android\\.apps\\.tasks:id/star_button'\n" +
    "    childOf:\n      text: Task 3\n";
  const { report, standin } = await replayPlan(TASKS_XML, maestroToPlan(parseMaestroFlow(flow)));
  assertEquals(report.results.map((r) => [r.status, r.description]), [
    ["ok", 'click row("Task 7") >> text="Task 7"'],
    ["ok", 'click row("Task 3") >> id=com.google.android.apps.tasks:id/star_button'],
  ]);
  // Task 7's name [180,1446][1420,1514]; Task 3's star [1429,1896][1537,2004].
  assertEquals(taps(standin), [{ x: 800, y: 1480 }, { x: 1483, y: 1950 }]);
});

Deno.test("runPlayback() on Android reports a selector the device cannot read as an invalid selector, not 0 matches", async () => {
  const { report } = await replayPlan(TASKS_XML, {
    source: { kind: "actions" },
    platform: "android",
    actions: [{ type: "click", target: { textRegex: "Task (5" } }],
  });
  const r = report.results[0]!;
  assertEquals([r.status, r.error_code], ["failed", "selector_not_found"]);
  assert(r.error!.includes("text=/Task (5/ → invalid selector ("), r.error);
  assert(!r.error!.includes("→ 0"), r.error);
});

Deno.test("runPlayback() on Android fails an unreadable selector at once instead of waiting out the lookup time", async () => {
  // The default 2 s the runner waits for a page to settle: an invalid selector never matches.
  const { report } = await replayPlan(TASKS_XML, {
    source: { kind: "actions" },
    platform: "android",
    actions: [{ type: "click", target: { textRegex: "Task (5" } }],
  }, { locateWaitMs: 2_000 });
  const r = report.results[0]!;
  assertEquals([r.status, r.error_code], ["failed", "selector_not_found"]);
  assert(r.error!.includes("text=/Task (5/ → invalid selector ("), r.error);
  assert(r.duration_ms < 1_000, `took ${r.duration_ms} ms`);
});

Deno.test("runPlayback() on Android does not take an indexed id onto a field whose name contradicts the recorded content description", async () => {
  // The next app version: a Name field above Email (same id), and Email's content-desc gone.
  const xml = withNameField(LOGIN_XML).replace('content-desc="input-email"', 'content-desc=""');
  const trail = `config:
  id: name-above
  platform: android
trail:
  - step: Enter the email
    recording:
      - inputText:
          selectors:
            - contentDescription: "input-email"
            - id: "RNE__Input__text-input"
              index: 0
          text: "bob@example.com"
`;
  const { report, standin, screen } = await replayPlan(xml, trailToPlan(parseTrail(trail)));
  const r = report.results[0]!;
  assertEquals([r.status, r.error_code], ["failed", "selector_not_found"]);
  assertEquals(
    r.error,
    'No selector matched exactly one visible element (~input-email → 0; id=RNE__Input__text-input[0] → 3 (the element is "input-name", the recording targeted "input-email"))',
  );
  assertEquals(taps(standin), []);
  assertEquals(byDesc(screen, "input-name")?.text, "Name");
});

Deno.test("runPlayback() on Android checks a coordinate fallback's element by its content description", async () => {
  const plan = (target: PlaybackPlan["actions"][number]["target"]): PlaybackPlan => ({
    source: { kind: "actions" },
    platform: "android",
    viewport: { width: 1080, height: 2400 },
    actions: [{ type: "click", target }],
  });
  const point = { x: 540, y: 2263 };
  // An icon tab recorded by its content description; the app now shows "Search" there.
  const search = NAV_XML.replace('content-desc="Dashboard"', 'content-desc="Search"')
    .replace('text="Dashboard"', 'text="Search"');
  const other = await replayPlan(search, plan({ contentDescription: "Dashboard", point }));
  assertEquals(other.report.results[0]!.status, "failed");
  assertStringIncludes(
    other.report.results[0]!.error!,
    'the element at (540, 2263) is "Search", the recording targeted "Dashboard"',
  );
  assertEquals(taps(other.standin), []);
  // Recorded by its label; the label is gone, the tab still says "Dashboard" to TalkBack.
  const iconOnly = NAV_XML.replace('text="Dashboard"', 'text=""');
  const same = await replayPlan(iconOnly, plan({ text: "Dashboard", point }));
  const r = same.report.results[0]!;
  assertEquals([r.status, r.selector_used], ["healed", "coordinates"], r.error);
  assertEquals(taps(same.standin), [point]);
});

Deno.test("runPlayback() on Android fails a tap whose recorded point lies outside the screen, tapping nothing", async () => {
  const trail = `config:
  id: offscreen
  platform: android
trail:
  - step: Recorded actions
    recording:
      - tap:
          xy: [ 5000, 9000 ]
          viewport: { width: 1080, height: 2400 }
      - tap:
          selectors:
            - contentDescription: "Gone"
            - xy: [ 5000, 9000 ]
              viewport: { width: 1080, height: 2400 }
`;
  const { report, standin } = await replayPlan(NAV_XML, trailToPlan(parseTrail(trail)));
  assertEquals(report.results.map((r) => [r.status, r.error_code]), [
    ["failed", "selector_not_found"],
    ["failed", "selector_not_found"],
  ]);
  assertEquals(
    report.results[0]!.error,
    "Cannot click at the recorded point: the coordinate fallback (5000, 9000) is outside the 1080×2400 screen",
  );
  assertEquals(
    report.results[1]!.error,
    "No selector matched exactly one visible element (~Gone → 0), and the coordinate fallback (5000, 9000) is outside the 1080×2400 screen",
  );
  assertEquals(standin.gestures, []);
});

Deno.test("runPlayback() on Android treats an index past the matches on screen as not found, never as the one match there is", async () => {
  // The login screen without its Password field: one `RNE__Input__text-input` left (Email).
  const password = /<node index="1" text="Password"[^>]*\/>/.exec(LOGIN_XML)![0];
  const trail = `config:
  id: no-password
  platform: android
trail:
  - step: Enter the password
    recording:
      - inputText:
          selectors:
            - contentDescription: "input-password"
            - id: "RNE__Input__text-input"
              index: 1
          text: "s3cretPass!"
`;
  const { report, standin, screen } = await replayPlan(
    LOGIN_XML.replace(password, ""),
    trailToPlan(parseTrail(trail)),
  );
  const r = report.results[0]!;
  assertEquals([r.status, r.error_code], ["failed", "selector_not_found"]);
  assertEquals(
    r.error,
    "No selector matched exactly one visible element (~input-password → 0; id=RNE__Input__text-input[1] → 1 (index 1 needs 2 matches))",
  );
  assertEquals(taps(standin), []);
  assertEquals(byDesc(screen, "input-email")?.text, "Email");
});
