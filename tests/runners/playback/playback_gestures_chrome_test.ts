/**
 * The trail kinds that wait, assert absence, hold, drag or go back — `wait`, `assertNotVisible`,
 * `longPress`, `swipe`, `back` — and `assertText`'s retries, played in real headless Chromium on
 * `tests/testdata/web/gestures.html` (served on 127.0.0.1), with a real SQLite store. Each kind
 * passes where the page needs it and fails where it should; the page itself says what it saw
 * (a long press, a drag and its direction).
 */
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import type { PlaybackReport } from "../../../engine/playback/report.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import {
  assert,
  assertEquals,
  assertGreaterOrEqual,
  assertLessOrEqual,
  assertStringIncludes,
  assertThrows,
} from "../../_fixtures/assert.ts";

interface Env {
  driver: ChromeDriver;
  store: SqliteEventStore;
  base: string;
}

async function withChrome(fn: (env: Env) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-gestures-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const server = serveFolder();
  const driver = await ChromeDriver.launch();
  try {
    await fn({ driver, store, base: server.url });
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Plays a recording (YAML list items) on gestures.html, opened first. */
async function play(
  env: Env,
  recording: string,
  options: { actionTimeoutMs?: number } = {},
): Promise<PlaybackReport> {
  const yaml = `config:\n  platform: web\n  url: ${env.base}gestures.html\ntrail:\n` +
    `  - step: s\n    recording:\n${
      recording.trim().split("\n").map((l) => `      ${l}`).join("\n")
    }\n`;
  return await runPlayback(env.driver, env.store, trailToPlan(parseTrail(yaml)), {
    overlay: false,
    ...options,
  });
}

/** Each source action's [type, status, error_code] (the opening navigate left out). */
function rows(report: PlaybackReport): [string, string, string][] {
  return report.results.filter((r) => !r.added).map((r) => [
    r.action,
    r.status,
    r.error_code ?? "",
  ]);
}

async function text(env: Env, id: string): Promise<string> {
  return await env.driver.page.$eval(`#${id}`, (e) => e.textContent ?? "");
}

Deno.test("longPress holds the press at the element's centre; a tap there is only a click", async () => {
  await withChrome(async (env) => {
    const held = await play(
      env,
      `- longPress: { id: press }\n- assertText: { selector: { id: pressed }, equals: "Long pressed" }`,
    );
    assertEquals(rows(held), [["long_press", "ok", ""], ["assert_text", "ok", ""]]);
    assertGreaterOrEqual(held.results[1]!.duration_ms, 1_000); // held for 1 s
    assertEquals(await text(env, "pressed"), "Long pressed");
    const tapped = await play(env, `- tap: { id: press }`);
    assertEquals(rows(tapped), [["click", "ok", ""]]);
    assertEquals(await text(env, "pressed"), "Clicked");
    const missing = await play(env, `- longPress: { id: nothing-here }`, {
      actionTimeoutMs: 3_000,
    });
    assertEquals(rows(missing), [["long_press", "failed", "selector_not_found"]]);
  });
});

Deno.test("swipe drags the pointer across its element, or the screen, the way it names", async () => {
  await withChrome(async (env) => {
    const report = await play(
      env,
      [
        `- swipe: { selector: { ariaLabel: Track }, direction: left }`,
        `- assertText: { selector: { id: dragged }, equals: "Dragged left" }`,
        `- swipe: { selector: { ariaLabel: Track }, direction: down }`,
        `- assertText: { selector: { id: dragged }, equals: "Dragged down" }`,
        `- swipe: up`,
        `- assertText: { selector: { id: pagedrag }, equals: "Dragged up" }`,
      ].join("\n"),
    );
    assertEquals(rows(report).map((r) => r[1]), ["ok", "ok", "ok", "ok", "ok", "ok"]);
    assertEquals(report.results[1]!.description, 'swipe left [aria-label="Track"]');
    assertEquals(report.results[1]!.selector_used, "aria_label");
    assertEquals(report.results[5]!.selector_used, "screen");
    // the drag really went up over the page (the track's drag said down before)
    assertEquals(await text(env, "pagedrag"), "Dragged up");
    assertEquals(await text(env, "dragged"), "Dragged down");
    const wrong = await play(
      env,
      `- swipe: { selector: { ariaLabel: Track }, direction: right }\n` +
        `- assertText: { selector: { id: dragged }, equals: "Dragged left" }`,
      { actionTimeoutMs: 1_500 },
    );
    assertEquals(rows(wrong), [["swipe", "ok", ""], ["assert_text", "failed", "assertion_failed"]]);
    assertStringIncludes(wrong.results[2]!.error!, 'found "Dragged right"');
  });
});

Deno.test("assertNotVisible passes for a hidden or absent element, waits for one to go, and fails on a visible one", async () => {
  await withChrome(async (env) => {
    const passes = await play(
      env,
      [
        `- assertNotVisible: { id: gone }`, // display: none
        `- assertNotVisible: "Nowhere on the page"`,
        `- tap: Dismiss`,
        `- assertNotVisible: { id: toast }`, // hidden 1.2 s after the click
      ].join("\n"),
    );
    assertEquals(rows(passes).map((r) => r[1]), ["ok", "ok", "ok", "ok"]);
    assertGreaterOrEqual(passes.results[4]!.duration_ms, 900);
    assertEquals(passes.status, "completed");
    const t0 = performance.now();
    const fails = await play(env, `- assertNotVisible: { id: press }`, { actionTimeoutMs: 2_000 });
    assertEquals(rows(fails), [["assert_not_visible", "failed", "assertion_failed"]]);
    assertStringIncludes(fails.results[1]!.error!, "#press");
    assertStringIncludes(fails.results[1]!.error!, "not to be visible");
    assertLessOrEqual(performance.now() - t0, 6_000);
  });
});

Deno.test("wait pauses for a duration, or waits for an element to show up to its value", async () => {
  await withChrome(async (env) => {
    const report = await play(
      env,
      [
        `- wait: "400ms"`,
        `- tap: Start slow`,
        `- wait: { id: appeared }`, // shows 1.2 s after the click
        `- assertVisible: Appeared`,
        `- wait`,
      ].join("\n"),
    );
    assertEquals(rows(report).map((r) => r[1]), ["ok", "ok", "ok", "ok", "ok"]);
    assertGreaterOrEqual(report.results[1]!.duration_ms, 400);
    assertGreaterOrEqual(report.results[3]!.duration_ms, 900);
    // a wait shorter than the element takes to show fails, naming the element
    const short = await play(
      env,
      `- tap: Start slow\n- wait: { selector: { id: appeared }, value: "300" }`,
    );
    assertEquals(rows(short), [["click", "ok", ""], ["wait", "failed", "selector_not_found"]]);
    assertLessOrEqual(short.results[2]!.duration_ms, 2_000);
    // a wait longer than the action timeout is the action's work, not a timeout
    const long = await play(env, `- wait: "1.5s"`, { actionTimeoutMs: 500 });
    assertEquals(rows(long), [["wait", "ok", ""]]);
  });
});

Deno.test("back goes back one page and waits for it; on the first page it fails", async () => {
  await withChrome(async (env) => {
    const report = await play(
      env,
      `- tap: Next page\n- assertVisible: Page two\n- back\n- assertVisible: Gestures`,
    );
    assertEquals(rows(report).map((r) => r[1]), ["ok", "ok", "ok", "ok"]);
    assert(report.results[3]!.page_url!.endsWith("/gestures.html"), report.results[3]!.page_url);
    // the load event, or DOM quiet for a page the back/forward cache restored
    assert(report.results[3]!.navigation_wait !== "timeout", report.results[3]!.navigation_wait);
    const fresh = await ChromeDriver.launch();
    try {
      const first = await runPlayback(
        fresh,
        env.store,
        trailToPlan(parseTrail(
          `config: { platform: web, url: "${env.base}gestures.html" }\ntrail:\n  - step: s\n    recording:\n      - back\n`,
        )),
        { overlay: false },
      );
      assertEquals(rows(first), [["back", "failed", "page_error"]]);
      assertStringIncludes(first.results[1]!.error!, "first page of the tab's history");
    } finally {
      await fresh.close();
    }
  });
});

Deno.test("assertText retries until the text is right, up to the action timeout, and names the last text seen", async () => {
  await withChrome(async (env) => {
    const late = await play(
      env,
      `- tap: Start slow\n- assertText: { selector: { id: late }, equals: "Ready now" }`,
    );
    assertEquals(rows(late), [["click", "ok", ""], ["assert_text", "ok", ""]]);
    assertEquals(late.results[2]!.value, "Ready now");
    assertGreaterOrEqual(late.results[2]!.duration_ms, 900);
    const matches = await play(
      env,
      `- tap: Start slow\n- assertText: { selector: { id: late }, matches: "Ready \\\\w+" }`,
    );
    assertEquals(rows(matches).map((r) => r[1]), ["ok", "ok"]);
    // already right: no wait
    const right = await play(env, `- assertText: { selector: { id: late }, equals: "Waiting" }`);
    assertEquals(rows(right), [["assert_text", "ok", ""]]);
    assertLessOrEqual(right.results[1]!.duration_ms, 500);
    // never right within the timeout: the last text seen, before the timeout cuts it off
    const wrong = await play(
      env,
      `- assertText: { selector: { id: late }, equals: "Ready now" }`,
      { actionTimeoutMs: 1_500 },
    );
    assertEquals(rows(wrong), [["assert_text", "failed", "assertion_failed"]]);
    assertStringIncludes(wrong.results[1]!.error!, 'found "Waiting"');
    assertGreaterOrEqual(wrong.results[1]!.duration_ms, 800);
  });
});

Deno.test("a wait whose value is no duration is refused when the trail is read", () => {
  const trail = (v: string) =>
    `config: { platform: web }\ntrail:\n  - step: s\n    recording:\n      - wait: "${v}"\n`;
  assertThrows(
    () => parseTrail(trail("abc"), "w.yaml"),
    SyntaxError,
    "w.yaml: trail.0.recording.0.wait.value: expected a duration",
  );
  assertEquals(trailToPlan(parseTrail(trail("1.5s"))).actions[0]!.durationMs, 1_500);
  assertEquals(trailToPlan(parseTrail(trail("250"))).actions[0]!.durationMs, 250);
});
