/**
 * Playback in real headless Chromium on pages written for each case and served from
 * 127.0.0.1: the coordinate fallback never acts on an element that is not the recorded one,
 * reads by coordinates read the element at the point, a hung page ends the playback in
 * bounded time, and a slow navigation is called what it is.
 */
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { PlaybackAction, PlaybackPlan } from "../../../engine/playback/actions.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { servePlaybackPages } from "../../_fixtures/playback_server.ts";
import { withDeadline } from "../../../drivers/with_deadline.ts";
import { assertEquals, assertLessOrEqual, assertStringIncludes } from "../../_fixtures/assert.ts";

interface Env {
  driver: ChromeDriver;
  store: SqliteEventStore;
  url: string;
}

/** Serves `pages` (file name → HTML) from a temporary folder to a fresh Chromium. */
async function withPages(
  pages: Record<string, string>,
  fn: (env: Env) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-playback-honesty-" });
  for (const [name, html] of Object.entries(pages)) {
    await Deno.writeTextFile(`${dir}/${name}`, html);
  }
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const server = servePlaybackPages(dir);
  const driver = await ChromeDriver.launch({});
  try {
    await fn({ driver, store, url: server.url });
  } finally {
    // A hung page may keep the browser from closing: kill it.
    await withDeadline(driver.close(), 5_000, () => new Error("close timed out"))
      .catch(() => driver.kill());
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

function plan(actions: PlaybackAction[]): PlaybackPlan {
  return {
    source: { kind: "recording" },
    platform: "web",
    viewport: { width: 1280, height: 800 },
    actions,
  };
}

const PAGE_HEAD = `<!doctype html><html><head><meta charset="utf-8">
<script>window.__log = [];</script></head><body style="margin:0">`;

async function pageLog(env: Env): Promise<string[]> {
  return await env.driver.page.evaluate(() => (globalThis as unknown as { __log: string[] }).__log);
}

Deno.test("playback in Chromium refuses the coordinate fallback onto an unnamed element where a named one was recorded", async () => {
  const danger = `${PAGE_HEAD}
<button id="x" onclick="__log.push('click:x')"
  style="position:absolute;left:360px;top:140px;width:60px;height:36px"><svg width="20" height="20"></svg></button>
</body></html>`;
  await withPages({ "danger.html": danger }, async (env) => {
    const report = await runPlayback(
      env.driver,
      env.store,
      plan([
        { type: "navigate", url: env.url + "danger.html" },
        {
          type: "click",
          target: {
            role: "button",
            name: "Add one Coffee",
            testId: "inc-coffee",
            point: { x: 390, y: 158 },
          },
        },
      ]),
      { locateWaitMs: 200 },
    );
    const click = report.results[1]!;
    assertEquals(click.status, "failed");
    assertEquals(click.error_code, "selector_not_found");
    assertStringIncludes(click.error!, "unnamed");
    assertEquals(await pageLog(env), []);
  });
});

Deno.test("playback in Chromium reads and asserts the text of the element a coordinate fallback resolved", async () => {
  // Two buttons share the recorded name, so every selector level matches two: only the point
  // tells them apart.
  const totals = `${PAGE_HEAD}
<button aria-label="Total" style="position:absolute;left:100px;top:100px;width:120px;height:40px">12.50</button>
<button aria-label="Total" style="position:absolute;left:100px;top:300px;width:120px;height:40px">99.00</button>
</body></html>`;
  await withPages({ "totals.html": totals }, async (env) => {
    const target = { role: "button", ariaLabel: "Total", name: "Total", point: { x: 160, y: 320 } };
    const report = await runPlayback(
      env.driver,
      env.store,
      plan([
        { type: "navigate", url: env.url + "totals.html" },
        { type: "read_text", target, storeAs: "total" },
        { type: "assert_text", target, expected: "99.00" },
        { type: "assert_text", target, expected: "{{total}}" },
      ]),
      { locateWaitMs: 200 },
    );
    const [, read, assert, again] = report.results;
    assertEquals(read!.selector_used, "coordinates");
    assertEquals(read!.status, "healed");
    assertEquals(read!.value, "99.00");
    assertEquals(assert!.status, "healed");
    assertEquals(assert!.value, "99.00");
    assertEquals(again!.status, "healed");
  });
});

Deno.test("playback in Chromium ends a playback on a hung page in bounded time, each action failed with a timeout", async () => {
  const hang =
    `<!doctype html><html><body><p>Never answers</p><script>for (;;) {}</script></body></html>`;
  // the hung page is not the first one opened: a failed opening navigate skips the rest
  const start = `${PAGE_HEAD}<p>Start</p></body></html>`;
  await withPages({ "start.html": start, "hang.html": hang }, async (env) => {
    const t0 = performance.now();
    const report = await withDeadline(
      runPlayback(
        env.driver,
        env.store,
        plan([
          { type: "navigate", url: env.url + "start.html" },
          { type: "navigate", url: env.url + "hang.html" },
          { type: "click", target: { testId: "go" } },
          { type: "read_text", target: { id: "count" }, storeAs: "count" },
        ]),
        { actionTimeoutMs: 1_500, locateWaitMs: 200 },
      ),
      45_000,
      () => new Error("the playback did not end within 45 s"),
    );
    assertLessOrEqual(performance.now() - t0, 30_000);
    assertEquals(report.status, "failed");
    assertEquals(report.results.map((r) => r.status), ["ok", "failed", "failed", "failed"]);
    assertEquals(report.results.map((r) => r.error_code), [
      undefined,
      "timeout",
      "timeout",
      "timeout",
    ]);
    assertStringIncludes(report.results[2]!.error!, "The page did not answer");
  });
});

Deno.test("playback in Chromium fails a navigation whose server answers too late as navigation_timeout, not url_mismatch", async () => {
  await withPages({ "start.html": `${PAGE_HEAD}<p>Start</p></body></html>` }, async (env) => {
    const slow = await serveSlow();
    try {
      const report = await runPlayback(
        env.driver,
        env.store,
        plan([
          { type: "navigate", url: env.url + "start.html" },
          { type: "navigate", url: slow.url },
        ]),
      );
      const nav = report.results[1]!;
      assertEquals(nav.status, "failed");
      assertEquals(nav.error_code, "navigation_timeout");
      assertStringIncludes(nav.error!, "did not load within 5 s");
      assertEquals(report.results[0]!.status, "ok");
    } finally {
      await slow.close();
    }
  });
});

/** A server whose one page answers after 8 s: a navigation to it outlasts the 5 s cap. */
function serveSlow(): { url: string; close: () => Promise<void> } {
  const pending = new Set<() => void>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async () => {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, 8_000);
      function done() {
        clearTimeout(timer);
        pending.delete(done);
        resolve();
      }
      pending.add(done);
    });
    return new Response("<p>late</p>", { headers: { "content-type": "text/html" } });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/late`,
    close: async () => {
      for (const done of [...pending]) done(); // answer now: shutdown waits for open requests
      await server.shutdown();
    },
  };
}
