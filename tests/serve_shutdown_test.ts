import { assert, assertEquals } from "./assert.ts";
import { blazeRegistry } from "../api/blaze.ts";
import { closeLiveWork } from "../cli/serve.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import type { StoredEvent } from "../events/schemas.ts";
import { ChromeDriver } from "../drivers/chrome/chrome_driver.ts";
import { withDeadline } from "../drivers/with_deadline.ts";
import { serveFolder } from "./web_server.ts";
import { startServe } from "./cli_run.ts";

Deno.test("closeLiveWork() ends live blaze sessions as interrupted and closes their real Chromium", async () => {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const registry = blazeRegistry(store, { settleMs: 50, screenshots: false });
  try {
    const session = await registry.start({ url: server.url + "login.html", prompt: "Sign in" });
    const driver = session.driver;
    assert(driver instanceof ChromeDriver, "the default driver is Chromium");
    assert(driver.browser.connected, "browser up before shutdown");
    assertEquals(registry.ids(), [session.id]);

    await closeLiveWork(store);

    assertEquals(registry.ids(), []);
    assert(!driver.browser.connected, "browser still connected after shutdown");
    const ended = [];
    for await (const e of store.readStream(session.streamId)) {
      if (e.type === "SessionEnded") ended.push(e.data);
    }
    assertEquals(ended, [{ reason: "interrupted" }]);
  } finally {
    await registry.closeAll();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** Pids of the processes whose command line names a user-data-dir under `dir`. */
async function chromiumUnder(dir: string): Promise<number[]> {
  const pids: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`).catch(() => "");
    const args = cmdline.split("\0");
    if (args.some((a) => a.startsWith(`--user-data-dir=${dir}/`))) pids.push(Number(entry.name));
  }
  return pids;
}

Deno.test("cairn serve on SIGTERM stops a running playback and a blaze session and leaves no Chromium running", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_serve_stop_" });
  // the server's browsers make their profiles under its own TMPDIR: theirs are told apart
  const tmp = `${dir}/tmp`;
  await Deno.mkdir(tmp);
  const web = serveFolder();
  const { child, url: api, stderr } = await startServe(["--db", `${dir}/c.db`], { TMPDIR: tmp });
  try {
    const post = (path: string, body: unknown) =>
      fetch(api + path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    // recorded timing: 30 s between the two navigations, so the playback is running at SIGTERM
    const playback = await post("/v1/playbacks", {
      actions: [
        { action: "navigate", url: web.url + "login.html", timestamp_ms: 0 },
        { action: "navigate", url: web.url + "cart.html", timestamp_ms: 30_000 },
      ],
      timing: "recorded",
    });
    assertEquals(playback.status, 202);
    const { playback_id } = await playback.json();
    const blaze = await post("/v1/blaze/sessions", { url: web.url + "login.html", prompt: "x" });
    assertEquals(blaze.status, 201);
    const { sessionId } = await blaze.json();
    assert((await chromiumUnder(tmp)).length > 0, "the server launched Chromium");

    child.kill("SIGTERM");
    const status = await withDeadline(
      child.status,
      20_000,
      () => new Error("serve did not exit within 20 s of SIGTERM"),
    );
    assertEquals(status.code, 0, await stderr);
    for (let i = 0; i < 50 && (await chromiumUnder(tmp)).length > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assertEquals(await chromiumUnder(tmp), [], "Chromium left running after serve exited");

    const store = SqliteEventStore.open(`${dir}/c.db`);
    try {
      const last = async (stream: string) =>
        (await Array.fromAsync(store.readStream(stream))).at(-1);
      const ended = await last(`playback-${playback_id}`) as StoredEvent;
      assertEquals([ended.type, ended.data], [
        "PlaybackCompleted",
        {
          status: "failed",
          durationMs: (ended.data as { durationMs: number }).durationMs,
          error: "Stopped before action 1: the server is shutting down",
        },
      ]);
      const session = await last(`session-${sessionId}`) as StoredEvent;
      assertEquals([session.type, session.data], ["SessionEnded", { reason: "interrupted" }]);
    } finally {
      store.close();
    }
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.status;
    await stderr;
    for (const pid of await chromiumUnder(tmp)) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch { /* exited meanwhile */ }
    }
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
});
