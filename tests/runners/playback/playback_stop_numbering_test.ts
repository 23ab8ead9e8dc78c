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
    for (let i = 0; i < 100; i++) {
      const r = await (await app.request(`/v1/playbacks/${id}`)).json();
      // the opening navigate is done: the tap is looking (for about 2 s)
      if (r.results.length >= 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
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
