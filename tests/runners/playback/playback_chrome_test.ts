/**
 * The playback engine in real headless Chromium on local pages, with planned changes between
 * recording and replay: each scenario records on the app as served, switches the server to a
 * variant, replays, and checks the report and what the page itself logged (every target
 * element logs its own identity when acted on, so a wrong element cannot pass).
 */
import sharp from "sharp";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { PlaybackAction, PlaybackPlan } from "../../../engine/playback/actions.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { servePlaybackPages } from "../../_fixtures/playback_server.ts";
import { recordTarget } from "../../_fixtures/playback_record_helper.ts";
import {
  assert,
  assertEquals,
  assertGreaterOrEqual,
  assertLessOrEqual,
  assertStringIncludes,
} from "../../_fixtures/assert.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

interface Env {
  driver: ChromeDriver;
  store: SqliteEventStore;
  server: ReturnType<typeof servePlaybackPages>;
  dir: string;
}

async function withChrome(
  fn: (env: Env) => Promise<void>,
  viewport?: { width: number; height: number },
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-playback-chrome-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const server = servePlaybackPages();
  const driver = await ChromeDriver.launch(viewport ? { viewport } : {});
  try {
    await fn({ driver, store, server, dir });
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** Records one target on the live page (the app as served now). */
async function target(env: Env, selector: string) {
  return await recordTarget(env.driver.page, selector);
}

function plan(actions: PlaybackAction[], extra: Partial<PlaybackPlan> = {}): PlaybackPlan {
  return {
    source: { kind: "recording" },
    platform: "web",
    viewport: { width: 1280, height: 800 },
    actions,
    ...extra,
  };
}

async function pageLog(env: Env): Promise<string[]> {
  return await env.driver.page.evaluate(() => (globalThis as unknown as { __log: string[] }).__log);
}

Deno.test("playback in Chromium heals a removed data-testid to aria-label and screenshots the healed element", async () => {
  await withChrome(async (env) => {
    const url = env.server.url + "app.html";
    await env.driver.navigate(url);
    const email = await target(env, "#email");
    const submit = await target(env, "#submit");
    env.server.setVariant("notestid");
    const report = await runPlayback(
      env.driver,
      env.store,
      plan([
        { type: "navigate", url },
        { type: "type", target: email, text: "ann@example.com" },
        { type: "click", target: submit },
      ]),
      { screenshotDir: `${env.dir}/shots` },
    );
    assertEquals(report.results.map((r) => r.status), ["ok", "healed", "healed"]);
    assertEquals(report.results[2]!.selector_used, "aria_label");
    assertEquals(report.results[2]!.healed_selector, '[aria-label="Log in"]');
    assertEquals(await pageLog(env), [
      "click:email",
      "change:email=ann@example.com",
      "click:submit",
    ]);
    const value = await env.driver.page.$eval(
      "[data-ident=email]",
      (e) => (e as HTMLInputElement).value,
    );
    assertEquals(value, "ann@example.com");
    const png = await Deno.readFile(report.results[2]!.screenshot_path!);
    assertEquals([...png.slice(1, 4)], [0x50, 0x4e, 0x47]);
    // The element actually matched is highlighted: the box's border sits just outside it.
    const resolved = (await Array.fromAsync(env.store.readStream(`playback-${report.playback_id}`)))
      .filter((e) => e.type === "PlaybackActionResolved").at(-1)!;
    const b = (resolved.data as { bounds: { x: number; y: number; w: number; h: number } }).bounds;
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({
      resolveWithObject: true,
    });
    const px = (
      x: number,
      y: number,
    ) => [...data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3)];
    const border = px(b.x - 2, Math.round(b.y + b.h / 2));
    assert(
      border[0]! > 200 && border[1]! < 100 && border[2]! < 140,
      `highlight border at ${JSON.stringify(border)}`,
    );
    assertEquals(report.screenshots.length, 2);
    const subtitle = await env.driver.page.evaluate(() =>
      (globalThis as unknown as { __cairnOverlay?: ShadowRoot }).__cairnOverlay?.querySelector(
        ".sub",
      )
        ?.textContent
    );
    assertEquals(subtitle, "Playback [3/3]: click [data-testid=submit-btn]");
  });
});

Deno.test("playback in Chromium numbers the subtitle as the report does: the page Cairn opens first is +, and not counted", async () => {
  await withChrome(async (env) => {
    const url = env.server.url + "app.html";
    await env.driver.navigate(url);
    const email = await target(env, "#email");
    const submit = await target(env, "#submit");
    const subtitle = () =>
      env.driver.page.evaluate(() =>
        (globalThis as unknown as { __cairnOverlay?: ShadowRoot }).__cairnOverlay?.querySelector(
          ".sub",
        )?.textContent
      );
    const shown: (string | undefined)[] = [];
    const report = await runPlayback(
      env.driver,
      env.store,
      plan([
        // what a trail's config.url or --url adds: not one of the source's actions
        { type: "navigate", url, added: true },
        { type: "type", target: email, text: "ann@example.com" },
        { type: "click", target: submit },
      ]),
      { afterAction: async (index) => void (index > 0 && shown.push(await subtitle())) },
    );
    assertEquals(report.results.map((r) => [r.status, r.source_index ?? "+"]), [
      ["ok", "+"],
      ["ok", 0],
      ["ok", 1],
    ]);
    assertEquals(shown, [
      `Playback [1/2]: ${report.results[1]!.description}`,
      `Playback [2/2]: ${report.results[2]!.description}`,
    ]);
  });
});

Deno.test("playback in Chromium heals renamed ids to text, changed text to the id, and refuses a path onto a renamed element", async () => {
  await withChrome(async (env) => {
    const url = env.server.url + "app.html";
    await env.driver.navigate(url);
    const add = await target(env, "#add-item");
    // A trail-style target: the id first, the text as its fallback.
    const byId: PlaybackAction = { type: "click", target: { id: add.id!, text: add.text! } };
    env.server.setVariant("renameids");
    const renamed = await runPlayback(
      env.driver,
      env.store,
      plan([{ type: "navigate", url }, byId]),
    );
    assertEquals(renamed.results[1]!.status, "healed");
    assertEquals(renamed.results[1]!.selector_used, "text");
    assertEquals(renamed.results[1]!.healed_selector, "text=Add item");
    assertEquals(await pageLog(env), ["click:add"]);

    // Copy changed: the recorded role + name no longer matches; the id still does.
    env.server.setVariant("copy");
    const copy = await runPlayback(
      env.driver,
      env.store,
      plan([
        { type: "navigate", url },
        { type: "click", target: add },
      ]),
    );
    assertEquals(copy.results[1]!.status, "healed");
    assertEquals(copy.results[1]!.selector_used, "id");
    assertEquals(copy.results[1]!.healed_selector, "#add-item");
    assertEquals(await pageLog(env), ["click:add"]);

    // Ids renamed and copy changed: only the CSS path still matches, onto a button whose
    // name is no longer the recorded one. Position never overrules identity: it fails.
    env.server.setVariant("renameids,copy");
    const both = await runPlayback(
      env.driver,
      env.store,
      plan([
        { type: "navigate", url },
        { type: "click", target: add },
      ]),
      { locateWaitMs: 300 },
    );
    assertEquals(both.results[1]!.status, "failed");
    assertEquals(both.results[1]!.tried!.map((t) => [t.strategy, t.matches]), [
      ["role_name", 0],
      ["id", 0],
      ["text", 0],
      ["css_path", 0],
      ["coordinates", 0],
    ]);
    assertEquals(await pageLog(env), []);
  });
});

Deno.test("playback in Chromium falls back to coordinates scaled to a smaller viewport when an element moved", async () => {
  let recorded: PlaybackAction | undefined;
  await withChrome(async (env) => {
    await env.driver.navigate(env.server.url + "app.html");
    recorded = { type: "click", target: await target(env, "#go") };
  });
  await withChrome(async (env) => {
    const url = env.server.url + "app.html";
    env.server.setVariant("move");
    const report = await runPlayback(
      env.driver,
      env.store,
      plan([{ type: "navigate", url }, recorded!]),
    );
    const r = report.results[1]!;
    assertEquals(r.status, "healed");
    assertEquals(r.selector_used, "coordinates");
    assertEquals(r.healed_selector, "xy=717,435");
    assertStringIncludes(
      report.warnings[0]!,
      "viewport_mismatch: Recording was 1280x800, current is 960x600",
    );
    assertEquals(await pageLog(env), ["click:go"]);
  }, { width: 960, height: 600 });
});

Deno.test("playback in Chromium reports url_mismatch on an auth redirect and auth_redirect on the failures after it", async () => {
  await withChrome(async (env) => {
    await env.driver.navigate(env.server.url + "account");
    const submit = await target(env, "#submit");
    env.server.setLoggedIn(false);
    const report = await runPlayback(
      env.driver,
      env.store,
      plan([
        { type: "navigate", url: env.server.url + "account" },
        { type: "click", target: submit },
      ]),
      { locateWaitMs: 300 },
    );
    const [nav, click] = report.results;
    assertEquals(nav!.status, "ok");
    assertEquals(nav!.error_code, "url_mismatch");
    assertEquals(nav!.page_url, env.server.url + "login.html");
    assertEquals(click!.status, "failed");
    assertEquals(click!.error_code, "selector_not_found");
    assertEquals(click!.likely_cause, "auth_redirect");
  });
});

Deno.test("playback in Chromium follows an SPA navigation to an element rendered after the route change", async () => {
  await withChrome(async (env) => {
    const url = env.server.url + "app.html";
    await env.driver.navigate(url);
    const link = await target(env, "#spa-link");
    await env.driver.tap(link.point!);
    await env.driver.waitForSettle({ quietMs: 300 });
    const cont = await target(env, "[data-testid=continue-btn]");
    const report = await runPlayback(
      env.driver,
      env.store,
      plan([
        { type: "navigate", url },
        { type: "click", target: link },
        { type: "click", target: cont },
      ]),
    );
    assertEquals(report.results.map((r) => r.status), ["ok", "ok", "ok"]);
    assertEquals(report.results[2]!.page_url, env.server.url + "spa/next");
    assertEquals(await pageLog(env), ["click:spa-link", "click:continue"]);
  });
});

Deno.test("playback in Chromium never types [redacted]: skipped without an override, typed with one", async () => {
  await withChrome(async (env) => {
    const url = env.server.url + "app.html";
    await env.driver.navigate(url);
    const pw = await target(env, "#password");
    const actions: PlaybackAction[] = [
      { type: "navigate", url },
      { type: "type", target: pw, text: "[redacted]" },
    ];
    const value = () => env.driver.page.$eval("#password", (e) => (e as HTMLInputElement).value);
    const skipped = await runPlayback(env.driver, env.store, plan(actions));
    assertEquals(skipped.results[1]!.status, "skipped");
    assertEquals(skipped.results[1]!.error_code, "redacted_value");
    assertEquals(await value(), "");
    const typed = await runPlayback(env.driver, env.store, plan(actions), {
      valueOverrides: { "1": "hunter2" },
    });
    assertEquals(typed.results[1]!.status, "ok");
    assertEquals(await value(), "hunter2");
  });
});

Deno.test("playback in Chromium honours each error mode", async () => {
  await withChrome(async (env) => {
    const url = env.server.url + "app.html";
    await env.driver.navigate(url);
    const email = await target(env, "#email");
    const submit = await target(env, "#submit");
    const actions: PlaybackAction[] = [
      { type: "navigate", url },
      { type: "click", target: { testId: "missing-button" } },
      { type: "type", target: email, text: "a@b.c" },
      { type: "click", target: submit },
      { type: "type", target: email, text: "d@e.f" },
    ];
    const opts = { locateWaitMs: 200 };
    const cont = await runPlayback(env.driver, env.store, plan(actions), {
      ...opts,
      onError: "continue",
    });
    assertEquals(cont.results.map((r) => r.status), ["ok", "failed", "ok", "ok", "ok"]);
    assertEquals(cont.status, "failed"); // every action ran, one failed
    const skip = await runPlayback(env.driver, env.store, plan(actions), {
      ...opts,
      onError: "skip_dependent",
    });
    assertEquals(skip.results.map((r) => r.status), ["ok", "failed", "skipped", "ok", "ok"]);
    assertEquals(skip.results[2]!.error_code, "skipped_dependency");
    const stop = await runPlayback(env.driver, env.store, plan(actions), {
      ...opts,
      onError: "stop",
    });
    assertEquals(stop.results.map((r) => r.status), ["ok", "failed"]);
    assertEquals(stop.status, "failed");
    assert(stop.results[1]!.screenshot_hash, "a failed action has a screenshot");
  });
});

Deno.test("playback in Chromium with skip_dependent skips what reads memory a failed action was to write, until it is written", async () => {
  await withChrome(async (env) => {
    const url = env.server.url + "app.html";
    const actions: PlaybackAction[] = [
      { type: "navigate", url },
      { type: "read_text", target: { id: "no-such-count" }, storeAs: "n" },
      { type: "assert_text", target: { id: "count" }, expected: "{{n}}" },
      { type: "memory_set", storeAs: "items", value: "{{n + 1}} items" },
      { type: "type", target: { id: "email" }, text: "{{items}}@example.com" },
      { type: "read_text", target: { id: "count" }, storeAs: "n" },
      { type: "assert_text", target: { id: "count" }, expected: "{{n}}" },
      { type: "type", target: { id: "email" }, text: "{{items}}" },
    ];
    const skip = await runPlayback(env.driver, env.store, plan(actions), {
      locateWaitMs: 200,
      onError: "skip_dependent",
    });
    assertEquals(skip.results.map((r) => r.status), [
      "ok",
      "failed",
      "skipped",
      "skipped",
      "skipped",
      "ok",
      "ok",
      "skipped",
    ]);
    for (const i of [2, 3]) {
      assertEquals(skip.results[i]!.error_code, "skipped_dependency");
      assertStringIncludes(skip.results[i]!.error!, "reads {{n}}, which action 1 did not produce");
    }
    // A skipped memory_set leaves its key unwritten too: what reads it is skipped.
    for (const i of [4, 7]) {
      assertStringIncludes(skip.results[i]!.error!, "reads {{items}}, which action 3 did not");
    }
    assertEquals(skip.results[6]!.value, "5");
    assertEquals(await pageLog(env), [], "nothing was typed");
    // continue runs it anyway: the assertion fails on the missing value.
    const cont = await runPlayback(env.driver, env.store, plan(actions.slice(0, 3)), {
      locateWaitMs: 200,
    });
    assertEquals(cont.results.map((r) => r.status), ["ok", "failed", "failed"]);
    assertEquals(cont.results[2]!.error_code, "page_error");
  });
});

Deno.test("playback in Chromium reports a screenshot it could not write in the action's warning and keeps the blob", async () => {
  await withChrome(async (env) => {
    const url = env.server.url + "app.html";
    const notADir = `${env.dir}/shots-is-a-file`;
    await Deno.writeTextFile(notADir, "not a folder");
    const report = await runPlayback(
      env.driver,
      env.store,
      plan([
        { type: "navigate", url },
        { type: "click", target: { testId: "missing-button" } },
        { type: "screenshot" },
      ]),
      { screenshotDir: notADir, locateWaitMs: 200 },
    );
    assertEquals(report.results.map((r) => r.status), ["ok", "failed", "ok"]);
    for (const r of report.results.slice(1)) {
      assertEquals(r.screenshot_path, undefined);
      assert(r.screenshot_hash, "the screenshot is still stored as a blob");
      assertStringIncludes(r.warning ?? "", `screenshot not written to ${notADir}/`);
      assertStringIncludes(r.warning ?? "", `stored as blob ${r.screenshot_hash}`);
      const blob = await env.store.getBlob(r.screenshot_hash!);
      assertEquals([...blob.bytes.slice(1, 4)], [0x50, 0x4e, 0x47]);
    }
    assertEquals(report.screenshots, report.results.slice(1).map((r) => r.screenshot_hash!));
    const completed = (await Array.fromAsync(
      env.store.readStream(`playback-${report.playback_id}`),
    )).filter((e) => e.type === "PlaybackActionCompleted");
    assertStringIncludes(JSON.stringify(completed[1]!.data), "screenshot not written");
  });
});

Deno.test("playback in Chromium runs every mapped action type and recorded timing keeps the gaps", async () => {
  await withChrome(async (env) => {
    const url = env.server.url + "app.html";
    await env.driver.navigate(url);
    const actions: PlaybackAction[] = [
      { type: "navigate", url, timestampMs: 1_000 },
      { type: "select", target: await target(env, "#plan"), value: "pro", timestampMs: 1_300 },
      { type: "check", target: await target(env, "#terms"), checked: true, timestampMs: 1_900 },
      { type: "click", target: await target(env, "#email"), timestampMs: 1_700 },
      // Typing into a <select> (a Recorder `change` step) picks the option.
      { type: "type", target: { id: "plan" }, text: "Free", timestampMs: 1_700 },
      { type: "key_press", key: "Tab", timestampMs: 2_000 },
      { type: "scroll", scrollTo: { x: 0, y: 40 }, timestampMs: 2_100 },
      { type: "screenshot", timestampMs: 2_100 },
      { type: "read_text", target: await target(env, "#count"), storeAs: "n", timestampMs: 2_100 },
      { type: "drag", timestampMs: 2_100 },
    ];
    const t0 = performance.now();
    const fast = await runPlayback(env.driver, env.store, plan(actions));
    const fastMs = performance.now() - t0;
    assertEquals(fast.results.map((r) => r.status), [
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      "skipped",
    ]);
    assertEquals(fast.results[8]!.value, "5");
    assertEquals(await pageLog(env), [
      "change:plan=pro",
      "click:terms",
      "change:terms=true",
      "click:email",
      "change:plan=free",
    ]);
    const focused = await env.driver.page.evaluate(() => document.activeElement?.id);
    assertEquals(focused, "terms"); // Tab moved the focus on from the plan select
    const t1 = performance.now();
    await runPlayback(env.driver, env.store, plan(actions), { timing: "recorded" });
    const recordedMs = performance.now() - t1;
    // Gaps 300 + 600 + 0 (negative) + 300 + 100 = 1 300 ms beyond the fast run.
    assertGreaterOrEqual(recordedMs - fastMs, 1_000);
    assertLessOrEqual(recordedMs - fastMs, 8_000);
  });
});

Deno.test("playback in Chromium caps a navigation at 5 s with a warning and reports an unreachable page as page_error", async () => {
  await withChrome(async (env) => {
    const report = await runPlayback(
      env.driver,
      env.store,
      plan([
        { type: "navigate", url: env.server.url + "slow.html" },
        { type: "click", target: { id: "ready" } },
        { type: "navigate", url: "http://127.0.0.1:9/unreachable" },
      ]),
    );
    const [slow, click, dead] = report.results;
    assertEquals(slow!.status, "ok");
    assertEquals(slow!.error_code, "navigation_timeout");
    assertEquals(slow!.navigation_wait, "timeout");
    assertStringIncludes(slow!.warning!, "navigation_timeout");
    assertGreaterOrEqual(slow!.duration_ms, 4_900);
    assertEquals(click!.status, "ok");
    assertEquals(dead!.status, "failed");
    assertEquals(dead!.error_code, "page_error");
  });
});

Deno.test("playback in Chromium targets the tab it is given", async () => {
  await withChrome(async (env) => {
    const url = env.server.url + "app.html";
    await env.driver.navigate(url);
    const add = await target(env, "#add-item");
    await env.driver.tap((await target(env, "#popup-link")).point!);
    // the popup's tab reaches the driver a moment later, and its page after it (seconds on a busy
    // machine): awaited, bounded; the assertions below say what was there
    const tabs = await waitUntil("the popup's tab on login.html", async () => {
      const now = await env.driver.tabs();
      const popup = now.find((t) => t.active);
      return now.length >= 2 && popup?.url === env.server.url + "login.html" && now;
    }, { timeoutMs: 20_000 }).catch(() => env.driver.tabs());
    assertEquals(tabs.length, 2);
    assertEquals(tabs.find((t) => t.active)!.url, env.server.url + "login.html");
    const first = tabs.find((t) => !t.active)!;
    const report = await runPlayback(
      env.driver,
      env.store,
      plan([{ type: "click", target: add }]),
      {
        tab: first.id,
      },
    );
    assertEquals(report.results[0]!.status, "ok");
    assertEquals(report.results[0]!.page_url, url);
    assertEquals(await pageLog(env), ["click:add"]);
  });
});

Deno.test("playback in Chromium reaches into shadow DOM and asserts text read there", async () => {
  await withChrome(async (env) => {
    const pages = servePlaybackPages(new URL("../../testdata/web/", import.meta.url).pathname);
    try {
      const report = await runPlayback(
        env.driver,
        env.store,
        plan([
          { type: "navigate", url: pages.url + "shadow.html" },
          { type: "type", target: { testId: "widget-email" }, text: "ann@example.com" },
          // The recorded test id is gone; role + name (the accessibility tree) still finds it.
          { type: "click", target: { testId: "subscribe-old", role: "button", name: "Subscribe" } },
          {
            type: "assert_text",
            target: { id: "widget-status" },
            expected: "Subscribed ann@example.com",
          },
          { type: "assert_text", target: { id: "widget-status" }, expected: "Subscribed nobody" },
        ]),
      );
      assertEquals(report.results.map((r) => r.status), ["ok", "ok", "healed", "ok", "failed"]);
      assertEquals(report.results[2]!.selector_used, "role_name");
      assertEquals(report.results[4]!.error_code, "assertion_failed");
    } finally {
      await pages.close();
    }
  });
});

Deno.test("playback in Chromium does not stall on a page that never stops mutating", async () => {
  await withChrome(async (env) => {
    const t0 = performance.now();
    const report = await runPlayback(
      env.driver,
      env.store,
      plan([
        { type: "navigate", url: env.server.url + "busy.html" },
        { type: "click", target: { id: "press" } },
        { type: "click", target: { id: "press" } },
        { type: "click", target: { id: "press" } },
      ]),
    );
    assertEquals(report.results.map((r) => r.status), ["ok", "ok", "ok", "ok"]);
    assertEquals(await pageLog(env), ["click:press", "click:press", "click:press"]);
    // Each click's settle gives up after 1.5 s (a 5 s cap per click would take over 15 s).
    assertLessOrEqual(performance.now() - t0, 10_000);
  });
});
