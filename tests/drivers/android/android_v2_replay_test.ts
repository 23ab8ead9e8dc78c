/**
 * Heuristics v2's Android trails replayed through `AndroidDriver` and the STAND-IN WebDriver
 * server (no device can run here) on a CHANGED screen: the settings list with one more app row
 * ("Maps") above the row the capture tapped. v2 names the row by its text and the icon buttons by
 * their child's content description, so the replay taps the same row; v1's class + index taps
 * the row that moved into its place.
 */
import { AndroidDriver } from "../../../drivers/android/android_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { optimize } from "../../../engine/optimizer/optimize.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { buildCapture, loadCaptureFile } from "../../_fixtures/optimizer_support.ts";
import { parseAndroid } from "../../../engine/screens/parse_android.ts";
import type { Trail } from "../../../engine/trail/trail.ts";

const DIR = new URL("../../testdata/android_v2/", import.meta.url);
const screen = (name: string) => Deno.readTextFileSync(new URL(`screens/${name}.xml`, DIR));
const LIST = screen("uiautomator_settings_display_over_apps_list_with_maps");
const DETAIL = screen("uiautomator_settings_display_over_apps_detail_switch");

/** Rows of the changed list: [top, bottom) of each app's row, 204 px tall from 704. */
const ROWS = [
  "Android Auto",
  "Google",
  "Google Play services",
  "Maps",
  "pet_time_lock",
  "Phone",
  "Photos",
  "YouTube",
];
function rowAt(y: number): string | undefined {
  return y >= 704 ? ROWS[Math.floor((y - 704) / 204)] : undefined;
}
const NAVIGATE_UP = { x0: 12, y0: 147, x1: 138, y1: 273 }; // the detail screen's back button
const SEARCH = { x0: 818, y0: 147, x1: 944, y1: 273 }; // the list's search button

async function replaySettings(heuristics: string) {
  const c = await loadCaptureFile(new URL("settings.capture.json", DIR).pathname, "settings");
  const { trail } = optimize(c.events, c.screens, { heuristics });
  const opened: string[] = [];
  const inside = (p: { x: number; y: number }, r: typeof SEARCH) =>
    p.x >= r.x0 && p.x < r.x1 && p.y >= r.y0 && p.y < r.y1;
  let searched = false;
  const standin = startAndroidStandin({
    screens: { list: LIST, detail: DETAIL },
    initial: "list",
    onTap: (p, _hit, at) => {
      if (at === "list" && inside(p, SEARCH)) searched = true;
      if (at === "list" && rowAt(p.y) !== undefined) {
        opened.push(rowAt(p.y)!);
        return "detail";
      }
      if (at === "detail" && inside(p, NAVIGATE_UP)) return "list";
      return undefined;
    },
  });
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_v2_replay_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    const report = await runPlayback(driver, store, trailToPlan(trail), {
      locateWaitMs: 0,
      settleAfterMs: 0,
    });
    return { report, opened, searched, finalScreen: standin.screen() };
  } finally {
    await driver.close();
    store.close();
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("runPlayback() of the v2 settings trail opens the same row and goes back on a list with one more row (stand-in)", async () => {
  const { report, opened, searched, finalScreen } = await replaySettings("v2");
  assertEquals(report.status, "completed", JSON.stringify(report.results));
  assertEquals(report.results.map((r) => r.selector_used), [
    "text",
    "text",
    "content_description",
    "content_description",
  ]);
  assertEquals(opened, ["pet_time_lock"]);
  assertEquals(finalScreen, "list");
  assert(searched, "the Search button was not tapped");
});

Deno.test("runPlayback() of the v1 settings trail opens the wrong row on a list with one more row (stand-in)", async () => {
  const { opened } = await replaySettings("v1");
  assertEquals(opened, ["Maps"]); // the row now where pet_time_lock was
});

Deno.test("runPlayback() of the v2 tasks trail scrolls the task list when the row it started on is gone (stand-in)", async () => {
  const c = await loadCaptureFile(new URL("tasks.capture.json", DIR).pathname, "tasks");
  const tasks = screen("uiautomator_google_tasks_list").replaceAll("Task 7", "Buy milk");
  for (const heuristics of ["v2", "v1"]) {
    const { trail } = optimize(c.events, c.screens, { heuristics });
    const plan = trailToPlan(trail);
    plan.actions = plan.actions.filter((a) => a.type === "scroll");
    const standin = startAndroidStandin({ screens: { tasks } });
    const dir = await Deno.makeTempDir({ prefix: "cairn_android_v2_replay_" });
    const store = SqliteEventStore.open(`${dir}/cairn.db`);
    const driver = await AndroidDriver.connect({ appium: standin.url });
    try {
      const report = await runPlayback(driver, store, plan, { locateWaitMs: 0, settleAfterMs: 0 });
      const swipes = standin.gestures.filter((g) => g.kind === "swipe");
      if (heuristics === "v2") {
        assertEquals(report.results.map((r) => [r.status, r.selector_used]), [["ok", "id"]]);
        // The list is [0,170][1600,2524]: the swipe runs up through its middle.
        assertEquals(swipes.map((s) => s.from.x), [800]);
        assert(swipes[0]!.from.y > swipes[0]!.to.y);
      } else {
        assertEquals(report.results[0]!.status, "failed");
        assertEquals(swipes, []);
      }
    } finally {
      await driver.close();
      store.close();
      await standin.close();
      await Deno.remove(dir, { recursive: true });
    }
  }
});

/**
 * Replays a capture's trail on its own screen (or that screen changed by `edit`) through the
 * stand-in; returns the taps it saw.
 */
async function replayOnItsScreen(
  name: string,
  xml: string,
  heuristics: string,
  edit: (source: string) => string = (source) => source,
) {
  const c = await loadCaptureFile(new URL(`${name}.capture.json`, DIR).pathname, name);
  const { trail } = optimize(c.events, c.screens, { heuristics });
  return await replayOn(trail, edit(screen(xml)));
}

/** Replays a trail through the stand-in showing one screen; returns the taps it saw. */
async function replayOn(trail: Trail, source: string) {
  const standin = startAndroidStandin({ screens: { only: source } });
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_v2_replay_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    const report = await runPlayback(driver, store, trailToPlan(trail), {
      locateWaitMs: 0,
      settleAfterMs: 0,
      // one screen that never changes: an assertion has nothing to wait for
      expectWaitMs: 0,
      onError: "continue",
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

const inBox = (p: { x: number; y: number }, [x0, y0, x1, y1]: number[]) =>
  p.x >= x0! && p.x < x1! && p.y >= y0! && p.y < y1!;
const COMPOSE = [662, 2143, 1017, 2290]; // Gmail's Compose button, drawn over the thread list
const SIGN_IN = [0, 1936, 1080, 2094]; // TikTok's "Sudah memiliki akun? Masuk", over the list

Deno.test("runPlayback() of the v2 Gmail trail taps Compose and finds the account disc by its id (stand-in)", async () => {
  const { report, taps } = await replayOnItsScreen("gmail", "uiautomator_gmail_inbox", "v2");
  assertEquals(report.status, "completed", JSON.stringify(report.results));
  assertEquals(report.results.map((r) => r.status), ["ok", "ok", "ok", "ok", "ok", "ok"]);
  // the disc's description holds the capture's account ({{account}}): found by its id
  assertEquals(report.results[3]!.selector_used, "id");
  assert(inBox(taps[1]!, COMPOSE), `the Compose tap landed at ${JSON.stringify(taps[1])}`);
});

Deno.test("runPlayback() of the v2 Gmail trail passes the account check signed in as another account (stand-in)", async () => {
  const other = (source: string) =>
    source.replace("testqadbiz8@dbizs-ub22-1912-101.zimbraeng.com", "someone.else@example.org");
  assert(other(screen("uiautomator_gmail_inbox")).includes("someone.else@example.org"));
  const { report } = await replayOnItsScreen("gmail", "uiautomator_gmail_inbox", "v2", other);
  assertEquals(report.results[3]!.status, "ok", JSON.stringify(report.results[3]));
  assertEquals(report.status, "completed", JSON.stringify(report.results));
});

Deno.test("runPlayback() of the v2 Messages trail reads and checks the alerts two minutes later (stand-in)", async () => {
  // every bubble's description carries its time: the conversation as it reads at 12:41
  const later = (source: string) => source.replaceAll("12:39 pm", "12:41 pm");
  assert(later(screen("uiautomator_google_messages_compose_conversation")).includes("12:41 pm"));
  const xml = "uiautomator_google_messages_compose_conversation";
  const { report } = await replayOnItsScreen("messages", xml, "v2", later);
  assertEquals(report.status, "completed", JSON.stringify(report.results));
  assertEquals(report.results.map((r) => r.status), ["ok", "ok", "ok", "ok", "ok"]);
  assertEquals(report.results[1]!.value, "ALERT: Disk usage 47.8% on Keval");
  assertEquals(report.results[2]!.value, "ALERT: CPU usage 11.1% on Keval");
});

Deno.test("runPlayback() of the v1 Gmail trail taps the list under Compose and fails the account check (stand-in)", async () => {
  const { report, taps } = await replayOnItsScreen("gmail", "uiautomator_gmail_inbox", "v1");
  assertEquals(report.results[3]!.status, "failed");
  assertEquals(report.results[3]!.error_code, "assertion_failed");
  assert(!inBox(taps[1]!, COMPOSE), `the v1 tap landed on Compose at ${JSON.stringify(taps[1])}`);
});

Deno.test("runPlayback() of the v2 TikTok trail taps the sign-in link drawn over the list, v1 the list (stand-in)", async () => {
  const v2 = await replayOnItsScreen("tiktok", "appium-source_tiktoklite_signup_id", "v2");
  assertEquals(v2.report.results[2]!.status, "ok", JSON.stringify(v2.report.results[2]));
  assert(inBox(v2.taps.at(-1)!, SIGN_IN), `the tap landed at ${JSON.stringify(v2.taps.at(-1))}`);
  const v1 = await replayOnItsScreen("tiktok", "appium-source_tiktoklite_signup_id", "v1");
  assert(
    !inBox(v1.taps.at(-1)!, SIGN_IN),
    `v1 tapped the link at ${JSON.stringify(v1.taps.at(-1))}`,
  );
});

const CLOSE = [975, 566, 1038, 629]; // TikTok's sign-up sheet close button, id `bf2`

Deno.test("runPlayback() of the v2 TikTok trail closes the sheet by bf2 when an icon is added before it, v1 taps the icon (stand-in)", async () => {
  // a build that draws one more icon (an ImageView, drawn at the sheet's top middle) before the
  // close button: the n-th ImageView is no longer the close button, its id still is
  const icon =
    `<android.widget.ImageView NAF="true" index="2" text="" class="android.widget.ImageView" ` +
    `package="com.zhiliaoapp.musically.go" content-desc="" checkable="false" checked="false" ` +
    `clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" ` +
    `long-clickable="false" password="false" selected="false" bounds="[500,566][563,629]" ` +
    `resource-id="com.zhiliaoapp.musically.go:id/bf1" instance="1"/>`;
  const added = (source: string) => {
    const at = source.indexOf(`<android.widget.ImageView NAF="true" index="3"`);
    assert(at > 0, "the close button is in the source");
    return source.slice(0, at) + icon + source.slice(at);
  };
  const xml = "appium-source_tiktoklite_signup_id";
  const v2 = await replayOnItsScreen("tiktok", xml, "v2", added);
  assertEquals(v2.report.results[1]!.status, "ok", JSON.stringify(v2.report.results[1]));
  assertEquals(v2.report.results[1]!.selector_used, "id");
  assert(inBox(v2.taps[1]!, CLOSE), `the v2 tap landed at ${JSON.stringify(v2.taps[1])}`);
  const v1 = await replayOnItsScreen("tiktok", xml, "v1", added);
  assert(!inBox(v1.taps[1]!, CLOSE), `v1 tapped the close button at ${JSON.stringify(v1.taps[1])}`);
});

/** Gmail's inbox from the corpus: the search box, and the account disc around its avatar. */
const GMAIL_INBOX = focused(
  Deno.readTextFileSync(
    new URL("../../../../shared/corpus/android/uiautomator_gmail_inbox.xml", import.meta.url),
  ),
  "com.google.android.gm:id/open_search",
);

/**
 * The source with the field of `id` focused, as a tap into it leaves it: the stand-in's hit test
 * takes the last node in document order under a point, here the thread list (drawn beneath the
 * search bar), so the tap before typing focuses nothing.
 */
function focused(source: string, id: string): string {
  const at = source.indexOf(`resource-id="${id}"`);
  assert(at > 0, `${id} is in the source`);
  const end = source.indexOf(">", at);
  const node = source.slice(at, end).replace(`focused="false"`, `focused="true"`);
  assert(node.includes(`focused="true"`), `${id} has a focused attribute`);
  return source.slice(0, at) + node + source.slice(end);
}
const GMAIL_EMAIL = "testqadbiz8@dbizs-ub22-1912-101.zimbraeng.com";

/** The agent searched for the account's email, then checked it on the avatar image. */
function avatarCapture() {
  const screen = parseAndroid(GMAIL_INBOX);
  return buildCapture("android", [
    {
      step: `Search for ${GMAIL_EMAIL}`,
      screen,
      kind: "inputText",
      point: { x: 540, y: 222 },
      text: GMAIL_EMAIL,
    },
    {
      step: "Verify the account email is shown",
      screen,
      kind: "assertText",
      point: { x: 967, y: 222 }, // the avatar ImageView, inside the disc
      expected: GMAIL_EMAIL,
    },
  ]);
}

Deno.test("runPlayback() of the v2 Gmail avatar-check trail passes where the text assertion on the image failed (stand-in)", async () => {
  const c = avatarCapture();
  // the trail v2 wrote before (v1 still writes it): the image's text compared with the email
  const old = optimize(c.events, c.screens, { heuristics: "v1" }).trail;
  assertEquals(old.trail[1]!.recording![0], {
    kind: "assertText",
    selector: { id: "com.google.android.gm:id/og_apd_internal_image_view" },
    equals: "{{searchTerm}}",
  });
  const before = await replayOn(old, GMAIL_INBOX);
  assertEquals(before.report.results[0]!.status, "ok", JSON.stringify(before.report.results[0]));
  assertEquals(before.report.results[1]!.status, "failed");
  assertEquals(before.report.results[1]!.error_code, "assertion_failed");
  // the image has no text: the player read "" and compared it with the email
  assert(
    before.report.results[1]!.error!.startsWith(
      `Expected text ${JSON.stringify(GMAIL_EMAIL)}, found ""`,
    ),
    before.report.results[1]!.error,
  );
  // v2 now: the disc (whose description holds the email) is there
  const now = optimize(c.events, c.screens, { heuristics: "v2" }).trail;
  assertEquals(now.trail[1]!.recording![0], {
    kind: "assertVisible",
    selector: { id: "com.google.android.gm:id/selected_account_disc_gmail" },
  });
  const after = await replayOn(now, GMAIL_INBOX);
  assertEquals(after.report.status, "completed", JSON.stringify(after.report.results));
  assertEquals(after.report.results.map((r) => r.status), ["ok", "ok"]);
  assertEquals(after.report.results[1]!.selector_used, "id");
  // signed in as another account, the check still finds the disc
  const other = GMAIL_INBOX.replace(GMAIL_EMAIL, "someone.else@example.org");
  assert(other.includes("someone.else@example.org"));
  const elsewhere = await replayOn(now, other);
  assertEquals(elsewhere.report.results.map((r) => r.status), ["ok", "ok"]);
});
