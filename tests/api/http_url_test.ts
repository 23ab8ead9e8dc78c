/**
 * The API only sends its browser to http(s) pages: a `file:` or `ftp:` url in a playback or a
 * validation is a 400 naming `url`, before anything runs or is stored. And an unknown session is
 * a 404 even while another validation runs; a blaze session over HTTP opens and navigates to
 * http(s) pages only. Real SQLite, real Chromium for the running ones.
 */
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { createApp } from "../../api/app.ts";
import { validationRegistry } from "../../api/validations.ts";
import { blazeRegistry } from "../../api/blaze.ts";
import { launchDefaultChrome } from "../../api/per_store.ts";
import { ingestOnce } from "../../cli/optimize.ts";
import { ChromeDriver } from "../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";

const CAPTURE = new URL("../../examples/web_checkout.capture.json", import.meta.url).pathname;

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

Deno.test("blaze over HTTP opens and navigates to http(s) pages only; the daemon's app (localPages) still opens file:", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-http-url-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  // the registry as the daemon makes it (its browsers may open local files); over HTTP the app's
  // own check keeps a session to http(s) pages all the same
  const registry = blazeRegistry(store, {
    settleMs: 50,
    screenshots: false,
    createDriver: () => launchDefaultChrome({ localFiles: true }),
  });
  const secret = `${dir}/secret.txt`;
  await Deno.writeTextFile(secret, "the server's own file");
  const page = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("<p>hello</p>", { headers: { "content-type": "text/html" } }),
  );
  const url = `http://127.0.0.1:${page.addr.port}/`;
  try {
    const app = createApp({ store });
    for (const bad of [`file://${secret}`, "data:text/html,<p>x</p>", "about:blank"]) {
      const res = await post(app, "/v1/blaze/sessions", { url: bad, prompt: "x" });
      assertEquals(res.status, 400, bad);
      const err = (await res.json()).error;
      assertEquals(err.issues.map((i: { path: string }) => i.path), ["body.url"], bad);
      assertStringIncludes(err.message, "http(s)");
    }
    assertEquals(registry.ids(), [], "no session started");

    const started = await post(app, "/v1/blaze/sessions", { url, prompt: "x" });
    assertEquals(started.status, 201);
    const { sessionId } = await started.json();
    const tool = (a: ReturnType<typeof createApp>, name: string, params: unknown) =>
      post(a, `/v1/blaze/sessions/${sessionId}/tools/${name}`, params);
    const nav = await tool(app, "navigate", { url: `file://${secret}` });
    assertEquals(nav.status, 400);
    assertEquals((await nav.json()).error.issues[0].path, "body.url");
    const snap = await (await tool(app, "snapshot", {})).json();
    assert(!snap.output.includes("the server's own file"), snap.output);

    // the blaze daemon serves its own user's CLI: its app keeps the CLI's rule
    const daemon = createApp({ store, localPages: true });
    const local = await tool(daemon, "navigate", { url: `file://${secret}` });
    assertEquals(local.status, 200);
    assert((await local.json()).ok);
    const shown = await (await tool(daemon, "snapshot", {})).json();
    assertStringIncludes(shown.output, "the server's own file");
  } finally {
    await registry.closeAll();
    store.close();
    await page.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
