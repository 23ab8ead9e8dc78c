/**
 * `POST /v1/playbacks/:id/stop` names the action it stopped as the report numbers it (after a
 * navigate Cairn added, `results[].index`, not the source's number), within its documented
 * bound. Real Chromium, a page served from 127.0.0.1.
 *
 * @module
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { createApp } from "../../../api/app.ts";
import { playbackRegistry, STOP_GRACE_MS } from "../../../api/playbacks.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

Deno.test("POST /v1/playbacks/:id/stop numbers the stopped action as the report does", async () => {
  const web = serveFolder();
  const store = SqliteEventStore.open(":memory:");
  const dir = await Deno.makeTempDir();
  playbackRegistry(store, { screenshotDir: dir });
  const app = createApp({ store });
  const post = (path: string, body?: unknown) =>
    app.request(path, {
      method: "POST",
      ...(body === undefined
        ? {}
        : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
  try {
    // config.url: Cairn adds the opening navigate (index 0); the tap waits for an element that
    // never comes
    const trail = `config:\n  platform: web\n  url: ${web.url}login.html\ntrail:\n` +
      `  - step: Find it\n    recording:\n      - tap: { text: Nowhere to be found }\n`;
    const res = await post("/v1/playbacks", { trail, timeoutMs: 60_000 });
    assertEquals(res.status, 202);
    const { playbackId: id } = await res.json();
    // the opening navigate is done: the tap is looking (for about 2 s). Awaited, bounded: the
    // browser's launch and the page take seconds on a busy machine
    await waitUntil("the opening navigate", async () => {
      const r = await (await app.request(`/v1/playbacks/${id}`)).json();
      return r.results.length >= 1;
    }, { everyMs: 20 });
    const t0 = performance.now();
    const stopped = await post(`/v1/playbacks/${id}/stop`);
    const took = performance.now() - t0;
    assertEquals(stopped.status, 200);
    const report = await stopped.json() as {
      error: string;
      results: { index: number; sourceIndex?: number; status: string }[];
    };
    const failed = report.results.find((r) => r.status === "failed");
    assertEquals([failed?.index, failed?.sourceIndex], [1, 0]);
    assertEquals(report.error, `Stopped during action 1: stopped by request`);
    assert(took < STOP_GRACE_MS + 2_000, `stop took ${Math.round(took)} ms`);
  } finally {
    await playbackRegistry(store).close();
    await web.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("POST /v1/playbacks/:id/stop ends a slow action within its documented bound and names it as the report does", async () => {
  // a page whose button never returns: the tap on it runs until its 60 s timeout. Its press
  // (before the click that freezes it) tells the server, so the stop comes once the hang is on
  let pressed = false;
  const page = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => {
      if (new URL(req.url).pathname === "/pressed") {
        pressed = true;
        return new Response(null, { status: 204 });
      }
      return new Response(
        `<!doctype html><title>Freeze</title>` +
          `<button onmousedown="navigator.sendBeacon('/pressed')" onclick="for (;;) {}">` +
          `Freeze</button>`,
        { headers: { "content-type": "text/html" } },
      );
    },
  );
  const store = SqliteEventStore.open(":memory:");
  const dir = await Deno.makeTempDir();
  playbackRegistry(store, { screenshotDir: dir });
  const app = createApp({ store });
  const post = (path: string, body?: unknown) =>
    app.request(path, {
      method: "POST",
      ...(body === undefined
        ? {}
        : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });
  try {
    // Cairn adds the opening navigate (index 0); the trail's own first action (index 1, its
    // number 0) taps the button that freezes the page
    const trail = `config:\n  platform: web\n  url: http://127.0.0.1:${page.addr.port}/\n` +
      `trail:\n  - step: Freeze it\n    recording:\n      - tap: { text: Freeze }\n`;
    const res = await post("/v1/playbacks", { trail, timeoutMs: 60_000 });
    assertEquals(res.status, 202);
    const { playbackId: id } = await res.json();
    // the tap has pressed the button (its click, which freezes the page, follows at once): a
    // fixed pause after the opening navigate could end before the tap got there on a busy machine
    await waitUntil("the tap to press the button", () => pressed);
    const t0 = performance.now();
    const stopped = await post(`/v1/playbacks/${id}/stop`);
    const took = performance.now() - t0;
    assertEquals(stopped.status, 200);
    const report = await stopped.json() as {
      error: string;
      results: { index: number; sourceIndex?: number; status: string }[];
    };
    console.log(`stop of a slow action answered in ${Math.round(took)} ms`);
    const failed = report.results.find((r) => r.status === "failed");
    assertEquals([failed?.index, failed?.sourceIndex], [1, 0]);
    assertEquals(report.error, `Stopped during action 1: stopped by request`);
    assert(took >= STOP_GRACE_MS, `the action had its grace (${Math.round(took)} ms)`);
    assert(took < STOP_GRACE_MS + 2_000, `stop took ${Math.round(took)} ms`);
  } finally {
    await playbackRegistry(store).close();
    await page.shutdown();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
