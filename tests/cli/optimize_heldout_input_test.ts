/**
 * Held-out checks of bad capture content through `cairn optimize FILE`, on real corpus screens
 * the points check was not written against (Gmail, Zomato, Messages, Safari and a React Native
 * app on iOS, dialogs dumped alone): a point on the screen's edge, inside and just beyond the
 * tolerance (2% or 24 px), negative, a swipe ending off the screen, actions that need a screen
 * and have none, iOS points, and a dialog whose dump is one window, not the screen.
 */
import { assert, assertEquals, assertMatch } from "../_fixtures/assert.ts";
import { cairn, ROOT } from "../_fixtures/cli_run.ts";

const ANDROID = `${ROOT}../shared/corpus/android/`;
const IOS = `${ROOT}../shared/corpus/ios/`;
const GMAIL = `${ANDROID}uiautomator_gmail_inbox.xml`; // 1080×2400
const ZOMATO = `${ANDROID}appium-source_zomato_offers_bottom_sheet.xml`; // 1344×2992
const MESSAGES = `${ANDROID}uiautomator_google_messages_compose_conversation.xml`; // 720×1536
const SAFARI = `${IOS}xcuitest-source_safari_iphone.xml`; // 430×932 points
const RN_IOS = `${IOS}maestro-hierarchy_rn_testingmaestro_iphone.json`; // 393×852 points
const ANR = `${ANDROID}uiautomator_system_anr_dialog.xml`; // the dialog alone: [28,974][1052,1480]
const CLIPHIST = `${ANDROID}uiautomator_cliphist_compose_settings_dialog.xml`; // [60,72][1020,1776]

type Action = Record<string, unknown>;

/** Writes a capture whose actions marked `screen: PATH` carry that file's hierarchy inline. */
async function capture(
  dir: string,
  platform: "android" | "ios" | "web",
  actions: (Action & { screen?: string })[],
  header: Record<string, unknown> = {},
): Promise<string> {
  const out: Action[] = [];
  for (const { screen, ...a } of actions) {
    out.push(screen ? { ...a, viewHierarchy: await Deno.readTextFile(screen) } : a);
  }
  const path = `${dir}/capture.json`;
  await Deno.writeTextFile(
    path,
    JSON.stringify({ format: "cairn.capture/v1", platform, ...header, actions: out }),
  );
  return path;
}

async function optimizeCapture(
  platform: "android" | "ios" | "web",
  actions: (Action & { screen?: string })[],
  header: Record<string, unknown> = {},
  flags: string[] = [],
) {
  const dir = await Deno.makeTempDir();
  try {
    const file = await capture(dir, platform, actions, header);
    return await cairn(["optimize", file, "--db", `${dir}/c.db`, ...flags]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** One refusal: exit 2, one line naming the file, the field and the reason. */
function assertRefused(r: { code: number; stderr: string }, field: string, reason: RegExp) {
  assertEquals(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split("\n");
  assertEquals(lines.length, 1, r.stderr);
  assert(lines[0]!.includes(`capture.json: ${field}: `), lines[0]);
  assertMatch(lines[0]!, reason);
}

const tap = (x: number, y: number, screen?: string): Action & { screen?: string } => ({
  action: "tap",
  coordinates: { x, y },
  nlStep: "Tap",
  ...(screen ? { screen } : {}),
});

for (
  const [name, file, x, y] of [
    ["on Gmail's bottom-right corner (1080, 2400)", GMAIL, 1080, 2400],
    ["1 px outside Gmail's screen", GMAIL, 1081, 2401],
    ["at the end of Gmail's tolerance (24 px, 48 px)", GMAIL, 1104, 2448],
    ["1 px before Gmail's left and top edges", GMAIL, -1, -1],
    ["at the end of Zomato's tolerance (2% of 1344×2992: 27 px, 60 px)", ZOMATO, 1371, 3052],
    ["on the iOS Safari screen's corner, in points (430, 932)", SAFARI, 430, 932],
  ] as const
) {
  Deno.test(`cairn optimize accepts a tap ${name}`, async () => {
    const r = await optimizeCapture(file === SAFARI ? "ios" : "android", [tap(x, y, file)]);
    assertEquals(r.code, 0, r.stderr);
    assert(r.stdout.includes(`xy: [ ${x}, ${y} ]`), r.stdout);
  });
}

for (
  const [name, file, point, field, size] of [
    ["1 px beyond Gmail's tolerance on the right", GMAIL, [1105, 100], "coordinates", "1080×2400"],
    ["1 px beyond Gmail's tolerance at the top", GMAIL, [540, -49], "coordinates", "1080×2400"],
    ["1 px beyond Zomato's tolerance below", ZOMATO, [600, 3053], "coordinates", "1344×2992"],
    ["25 px left of Messages' screen", MESSAGES, [-25, 700], "coordinates", "720×1536"],
  ] as const
) {
  Deno.test(`cairn optimize refuses a tap ${name}, naming the field (exit 2)`, async () => {
    const r = await optimizeCapture("android", [tap(point[0], point[1], file)]);
    assertRefused(
      r,
      `actions.0.${field}`,
      new RegExp(
        `\\(${point[0]}, ${point[1]}\\) is outside the ${size} screen the tap was made on$`,
      ),
    );
  });
}

Deno.test("cairn optimize refuses a swipe on Messages whose end is off the screen, naming `to`", async () => {
  const r = await optimizeCapture("android", [{
    action: "swipe",
    coordinates: { x: 360, y: 1200 },
    to: { x: 360, y: -200 },
    direction: "up",
    nlStep: "Scroll the conversation",
    screen: MESSAGES,
  }]);
  assertRefused(r, "actions.0.to", /\(360, -200\) is outside the 720×1536 screen the swipe/);
  // the same swipe ending on the screen is written
  const ok = await optimizeCapture("android", [{
    action: "swipe",
    coordinates: { x: 360, y: 1200 },
    to: { x: 360, y: 200 },
    direction: "up",
    nlStep: "Scroll the conversation",
    screen: MESSAGES,
  }]);
  assertEquals(ok.code, 0, ok.stderr);
});

Deno.test("cairn optimize checks a later action's point against the last screen captured before it", async () => {
  const r = await optimizeCapture("android", [
    tap(540, 750, GMAIL),
    tap(540, 2500), // no screen of its own: Gmail's 1080×2400 (tolerance 48 px) is the screen
  ]);
  assertRefused(
    r,
    "actions.1.coordinates",
    /\(540, 2500\) is outside the 1080×2400 screen the tap was made on \(the last one captured before it\)$/,
  );
});

Deno.test("cairn optimize reads iOS points in the hierarchy's space: a tap in device pixels (3×) is outside", async () => {
  // Safari's Share button is at (213, 876) in points; ×3 it is off the 430×932 screen
  const r = await optimizeCapture("ios", [tap(639, 2628, SAFARI)]);
  assertRefused(r, "actions.0.coordinates", /\(639, 2628\) is outside the 430×932 screen/);
  // the React Native app's middle, (196, 426) in points, ×3
  const rn = await optimizeCapture("ios", [tap(589, 1278, RN_IOS)]);
  assertRefused(rn, "actions.0.coordinates", /\(589, 1278\) is outside the 393×852 screen/);
  const points = await optimizeCapture("ios", [tap(213, 876, SAFARI)]);
  assertEquals(points.code, 0, points.stderr);
});

Deno.test("cairn optimize refuses a tap with no screen before the screen it needs (Facebook login), naming viewHierarchy", async () => {
  const r = await optimizeCapture("android", [
    tap(540, 1200),
    tap(540, 1200, `${ANDROID}appium-source_facebook_login_es.xml`),
  ]);
  assertRefused(
    r,
    "actions.0.viewHierarchy",
    /a tap at \(540, 1200\) needs the screen it was made on, and none was captured at or before it/,
  );
});

Deno.test("cairn optimize refuses a capture whose only action, an assertion, has no screen (and says 'an assertText')", async () => {
  const r = await optimizeCapture("android", [{
    action: "assertText",
    coordinates: { x: 84, y: 380 },
    expected: "Inbox",
    nlStep: "Check the inbox",
  }]);
  assertRefused(
    r,
    "actions.0.viewHierarchy",
    /: an assertText at \(84, 380\) needs the screen it was made on/,
  );
  // a swipe needs no screen to be replayed: its only action, without one, is written
  const swipe = await optimizeCapture("android", [{
    action: "swipe",
    coordinates: { x: 540, y: 1800 },
    to: { x: 540, y: 300 },
    direction: "up",
    nlStep: "Scroll",
  }]);
  assertEquals(swipe.code, 0, swipe.stderr);
  assertMatch(swipe.stdout, /- swipe: "up"/);
});

Deno.test("cairn optimize of an empty iOS capture warns that the trail has no step (exit 0)", async () => {
  const r = await optimizeCapture("ios", []);
  assertEquals(r.code, 0, r.stderr);
  assertMatch(r.stdout, /trail: \[\]/);
  assert(
    r.stderr.includes("warning: the capture holds no action: the trail has no step to replay"),
    r.stderr,
  );
});

for (
  const [name, file] of [["the ANR dialog", ANR], [
    "the clipboard history settings dialog",
    CLIPHIST,
  ]]
) {
  Deno.test(`cairn optimize takes a dump of ${name} alone as a window, not the screen: a tap beside it is accepted`, async () => {
    // the dump holds the dialog's window only; the phone's screen goes on below and beside it
    const beside = await optimizeCapture("android", [tap(540, 2200, file)]);
    assertEquals(beside.code, 0, beside.stderr);
    assert(beside.stdout.includes("xy: [ 540, 2200 ]"), beside.stdout);
    // a point before the screen's left edge is still out
    assertRefused(
      await optimizeCapture("android", [tap(-100, 1200, file)]),
      "actions.0.coordinates",
      /\(-100, 1200\) is outside the/,
    );
    // a declared viewport gives the screen its size
    const declared = { viewport: { width: 1080, height: 2400 } };
    assertEquals(
      (await optimizeCapture("android", [tap(540, 2200, file)], declared)).code,
      0,
    );
    assertRefused(
      await optimizeCapture("android", [tap(540, 2500, file)], declared),
      "actions.0.coordinates",
      /\(540, 2500\) is outside the 1080×2400 viewport the tap was made on$/,
    );
  });
}

Deno.test("cairn optimize --mode strict --explain on the notification shade: the expand button with its row's title, and why", async () => {
  const r = await optimizeCapture(
    "android",
    [{
      action: "tap",
      coordinates: { x: 970, y: 1214 },
      nlStep: "Expand the bedtime notification",
      screen: `${ANDROID}uiautomator_systemui_notification_shade_es.xml`,
    }],
    {},
    ["--mode", "strict", "--explain"],
  );
  assertEquals(r.code, 0, r.stderr);
  assertMatch(
    r.stdout,
    /id: "android:id\/expand_button"\n\s+childOf:\n\s+text: "Se activó el modo Hora de dormir"/,
  );
  assert(
    r.stdout.includes('rejected {"id":"android:id/expand_button"}: matches 3 nodes'),
    r.stdout,
  );
  assert(
    r.stdout.includes(
      'chose {"id":"android:id/expand_button","childOf":{"text":"Se activó el modo Hora de dormir"}} (id, strict)',
    ),
    r.stdout,
  );
  assert(!r.stdout.includes("recordable: false"), r.stdout);
});

Deno.test("cairn optimize --explain on the sample app's search results: a result's subtitle is asserted, and --explain says why", async () => {
  const r = await optimizeCapture(
    "web",
    [{
      action: "assertText",
      coordinates: { x: 25, y: 280 },
      expected: "Bluetooth, Black",
      nlStep: "Verify the first result's variant",
      format: "chrome",
      screen: `${ROOT}tests/testdata/snapshots/web_search_duplicates.chrome.json`,
    }],
    {},
    ["--explain"],
  );
  assertEquals(r.code, 0, r.stderr);
  assert(r.stdout.includes("div.result-subtitle"), r.stdout);
  assert(
    r.stdout.includes(
      "#       assertion target: the generic inside the listitem the point hit, which shows the " +
        "expected value",
    ),
    r.stdout,
  );
});
