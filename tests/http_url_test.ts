/**
 * The API only sends its browser to http(s) pages: a `file:` or `ftp:` url in a playback or a
 * validation is a 400 naming `url`, before anything runs or is stored. And an unknown session is
 * a 404 even while another validation runs. Real SQLite, real Chromium for the running one.
 */
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { createApp } from "../api/app.ts";
import { validationRegistry } from "../api/validations.ts";
import { ingestOnce } from "../cli/optimize.ts";
import { ChromeDriver } from "../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";

const CAPTURE = new URL("../examples/web_checkout.capture.json", import.meta.url).pathname;

function post(app: ReturnType<typeof createApp>, path: string, body: unknown) {
  return app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

Deno.test("POST /v1/playbacks and /v1/sessions/:id/validations refuse urls that are not http(s)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-http-url-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    const sessionId = await ingestOnce(store, CAPTURE);
    const app = createApp({ store });
    const read = [{ action: "read_text", selector: "pre", store_as: "x" }];
    const before = (await store.streams("playback-")).length;
    for (
      const body of [
        { actions: read, url: "file:///etc/hostname" },
        { actions: [{ action: "navigate", url: "file:///etc/hostname" }, ...read] },
        { trail: "config:\n  url: file:///etc/hostname\ntrail: []\n" },
      ]
    ) {
      const res = await post(app, "/v1/playbacks", body);
      assertEquals(res.status, 400, JSON.stringify(body));
      const err = (await res.json()).error;
      assertEquals(err.code, "invalid_request");
      assertStringIncludes(JSON.stringify(err), "url");
    }
    assertEquals((await store.streams("playback-")).length, before, "nothing played");

    const val = await post(app, `/v1/sessions/${sessionId}/validations`, { url: "ftp://x" });
    assertEquals(val.status, 400);
    const err = (await val.json()).error;
    assert(err.issues.some((i: { path: string }) => i.path === "body.url"), JSON.stringify(err));
    assertEquals((await store.streams("validation-")).length, 0);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("POST /v1/sessions/:id/validations: an unknown session is 404 while another validation runs", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-http-url-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const registry = validationRegistry(store, { createDriver: () => ChromeDriver.launch() });
  const page = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("<p>checkout</p>", { headers: { "content-type": "text/html" } }),
  );
  try {
    const sessionId = await ingestOnce(store, CAPTURE);
    const app = createApp({ store });
    const url = `http://127.0.0.1:${page.addr.port}/checkout`;
    const first = await post(app, `/v1/sessions/${sessionId}/validations`, { url });
    assertEquals(first.status, 202);
    const missing = await post(app, "/v1/sessions/nosuch/validations", { url });
    assertEquals(missing.status, 404);
    assertEquals((await missing.json()).error.code, "not_found");
  } finally {
    await registry.close();
    store.close();
    await page.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
