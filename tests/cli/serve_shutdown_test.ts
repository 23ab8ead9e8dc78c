import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { blazeRegistry } from "../../api/blaze.ts";
import { closeLiveWork } from "../../cli/serve.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import type { StoredEvent } from "../../events/schemas.ts";
import { ChromeDriver } from "../../drivers/chrome/chrome_driver.ts";
import { withDeadline } from "../../drivers/with_deadline.ts";
import { serveFolder } from "../_fixtures/web_server.ts";
import {
  chromiumUnder,
  killChildAndChromium,
  killChromiumUnder,
  ROOT,
  startServe,
} from "../_fixtures/cli_run.ts";
import {
  endOrphanedRuns,
  ORPHANED,
  ORPHANED_AT_STOP,
  ORPHANED_SESSION,
} from "../../cli/_orphaned_runs.ts";
import { claimRunsLock, shareRunsLock } from "../../cli/_runs_lock.ts";
import { readValidation } from "../../runners/validation/runner.ts";
import { readPlaybackReport } from "../../runners/playback/runner.ts";
import { waitUntil } from "../_fixtures/wait.ts";

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
    const { playbackId } = await playback.json();
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
    // Chromium's helper processes end a moment after the browser: seconds on a busy machine
    await waitUntil("Chromium to exit", async () => (await chromiumUnder(tmp)).length === 0, {
      timeoutMs: 20_000,
    }).catch(() => {});
    assertEquals(await chromiumUnder(tmp), [], "Chromium left running after serve exited");

    const store = SqliteEventStore.open(`${dir}/c.db`);
    try {
      const last = async (stream: string) =>
        (await Array.fromAsync(store.readStream(stream))).at(-1);
      const ended = await last(`playback-${playbackId}`) as StoredEvent;
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
    await killChromiumUnder(tmp);
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
});

const pbStarted = (playbackId: string) => ({
  type: "PlaybackStarted" as const,
  data: {
    playbackId,
    source: { kind: "actions" as const },
    platform: "web" as const,
    actionsTotal: 2,
    timing: "fast" as const,
    onError: "continue" as const,
  },
});

Deno.test("endOrphanedRuns() ends each playback and validation left without its ending event, once, failed with why", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_serve_orphans_" });
  const store = SqliteEventStore.open(`${dir}/c.db`);
  try {
    await store.append("playback-left", [pbStarted("left"), {
      type: "PlaybackActionCompleted",
      data: { index: 0, action: "navigate", status: "ok", durationMs: 5 },
    }]);
    await store.append("playback-done", [pbStarted("done"), {
      type: "PlaybackCompleted",
      data: { status: "completed", durationMs: 9 },
    }]);
    // not a playback's stream (no PlaybackStarted): not ended
    await store.append("playback-odd", [{ type: "StepStarted", data: { index: 0, text: "x" } }]);
    await store.append("validation-val-left", [{
      type: "ValidationStarted",
      data: { validationId: "val-left", sessionId: "s", policy: "authoring", maxIterations: 3 },
    }, {
      type: "ValidationIterationCompleted",
      data: {
        iteration: 1,
        playbackId: "val-left-1",
        passed: false,
        steps: [{
          index: 0,
          step: "Open",
          status: "unstable",
          evidence: ["not found"],
          passed: false,
        }],
        trail: "trail: []\n",
      },
    }]);

    assertEquals(await endOrphanedRuns(store), [
      { kind: "playback", id: "left" },
      { kind: "validation", id: "val-left" },
    ]);
    const report = (await readPlaybackReport(store, "left"))!;
    assertEquals([report.status, report.error], ["failed", ORPHANED]);
    assertEquals((await readPlaybackReport(store, "done"))!.status, "completed");
    const val = (await readValidation(store, "val-left"))!;
    assertEquals(val.status, "failed");
    assertEquals(val.message, `Validation stopped during iteration 2: ${ORPHANED}`);
    assertEquals(val.finalSteps?.map((s) => s.status), ["unstable"]);
    assertEquals(await endOrphanedRuns(store), [], "ended once");
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("endOrphanedRuns() ends a cairn record recording a dead process noted as its own, interrupted, but not an imported one nor one it did not note", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_serve_orphans_" });
  const store = SqliteEventStore.open(`${dir}/c.db`);
  try {
    const started = (sessionId: string, extra: Record<string, unknown> = {}) => ({
      type: "SessionStarted" as const,
      data: { sessionId, mode: "human" as const, platform: "web" as const, ...extra },
    });
    // what `cairn record` writes before its process is killed: a click, no SessionEnded
    await store.append("session-rec", [
      started("rec", { url: "http://127.0.0.1/", drivers: { chrome: "131" } }),
      {
        type: "ActionPerformed",
        data: { actionId: "a1", kind: "tap", point: { x: 5, y: 5 }, source: "human" },
      },
      { type: "ActionCompleted", data: { actionId: "a1", ok: true, durationMs: 0 } },
    ]);
    // a DevTools recording imported as a human session: a file, not a process that stopped
    await store.append("session-imp", [
      started("imp", { source: { format: "chrome-recorder", file: "flow.json" } }),
    ]);
    // the same recording written by someone else (no note of a Cairn process names it)
    await store.append("session-other", [started("other")]);
    const owned = new Set(["rec", "imp"]);
    assertEquals(await endOrphanedRuns(store, { owned }), [{ kind: "recording", id: "rec" }]);
    let other = 0;
    for await (const _ of store.readStream("session-other")) other++;
    assertEquals(other, 1, "a session no note names is left open");
    const rec: StoredEvent[] = [];
    for await (const e of store.readStream("session-rec")) rec.push(e);
    assertEquals(rec.map((e) => e.type), [
      "SessionStarted",
      "ActionPerformed",
      "ActionCompleted",
      "SessionEnded",
    ]);
    assertEquals(rec.at(-1)!.data, { reason: "interrupted", error: ORPHANED_SESSION });
    let imported = 0;
    for await (const _ of store.readStream("session-imp")) imported++;
    assertEquals(imported, 1);
    assertEquals(await endOrphanedRuns(store, { owned }), [], "ended once");
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("claimRunsLock() is alone only while no other open store holds the log's runs lock", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_serve_lock_" });
  const db = `${dir}/c.db`;
  try {
    const held = shareRunsLock(db)!;
    const busy = (await claimRunsLock(db))!;
    assertEquals(busy.alone, false);
    await busy.share(); // shared with the other holder: no wait
    busy.close();
    held.close();
    const free = (await claimRunsLock(db))!;
    assertEquals(free.alone, true);
    free.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn serve restarted after a SIGKILL reports the playback it was running failed, not running forever", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_serve_kill_" });
  const tmp = `${dir}/tmp`;
  await Deno.mkdir(tmp);
  const web = serveFolder();
  const db = `${dir}/c.db`;
  let first = await startServe(["--db", db], { TMPDIR: tmp });
  try {
    const res = await fetch(first.url + "/v1/playbacks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        actions: [
          { action: "navigate", url: web.url + "login.html", timestamp_ms: 0 },
          { action: "navigate", url: web.url + "cart.html", timestamp_ms: 30_000 },
        ],
        timing: "recorded",
      }),
    });
    assertEquals(res.status, 202);
    const { playbackId } = await res.json();
    first.child.kill("SIGKILL");
    await first.child.status;
    await first.stderr;
    await killChromiumUnder(tmp);

    first = await startServe(["--db", db], { TMPDIR: tmp });
    const report = await (await fetch(`${first.url}/v1/playbacks/${playbackId}`)).json();
    assertEquals([report.status, report.error], ["failed", ORPHANED]);
    first.child.kill("SIGTERM");
    assertEquals((await first.child.status).code, 0);
    assertStringIncludes(await first.stderr, `ended 1 unfinished run`);
  } finally {
    await killChildAndChromium(first.child, tmp);
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn serve leaves an unfinished playback alone while another process has the log open (a replay still running)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_serve_live_" });
  const db = `${dir}/c.db`;
  const store = SqliteEventStore.open(db);
  await store.append("playback-live", [pbStarted("live")]);
  const lock = shareRunsLock(db)!; // as `cairn replay` holds it while it runs
  const serve = await startServe(["--db", db]);
  try {
    const report = await (await fetch(`${serve.url}/v1/playbacks/live`)).json();
    assertEquals(report.status, "running");
    // it may be that process's: the stop route leaves it running
    const stop = await fetch(`${serve.url}/v1/playbacks/live/stop`, { method: "POST" });
    assertEquals(stop.status, 409);
    assertEquals((await stop.json()).error.code, "not_owned");
    assertEquals((await (await fetch(`${serve.url}/v1/playbacks/live`)).json()).status, "running");
  } finally {
    serve.child.kill("SIGTERM");
    await serve.child.status;
    await serve.stderr;
    lock.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a running cairn serve ends a playback whose cairn replay was killed (SIGKILL) when asked to stop it, not 409 not_owned", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_serve_cli_kill_" });
  const tmp = `${dir}/tmp`;
  await Deno.mkdir(tmp);
  const web = serveFolder();
  const db = `${dir}/c.db`;
  const file = `${dir}/two.json`;
  await Deno.writeTextFile(
    file,
    JSON.stringify([
      { action: "navigate", url: web.url + "login.html", timestamp_ms: 0 },
      { action: "navigate", url: web.url + "cart.html", timestamp_ms: 30_000 },
    ]),
  );
  const serve = await startServe(["--db", db]);
  const replay = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "-A",
      "--no-check",
      `${ROOT}main.ts`,
      "replay",
      file,
      "--db",
      db,
      "--timing",
      "recorded",
    ],
    env: { TMPDIR: tmp },
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    let id: string | undefined;
    for (let i = 0; i < 300 && id === undefined; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const { playbacks } = await (await fetch(`${serve.url}/v1/playbacks`)).json();
      id = playbacks.find((p: { actionsExecuted: number }) => p.actionsExecuted === 1)
        ?.playbackId;
    }
    assert(id !== undefined, "the replay played its first action");
    replay.kill("SIGKILL");
    await replay.status;
    const running = await (await fetch(`${serve.url}/v1/playbacks/${id}`)).json();
    assertEquals(running.status, "running", "nothing ended it yet");
    const stop = await fetch(`${serve.url}/v1/playbacks/${id}/stop`, { method: "POST" });
    assertEquals(stop.status, 200);
    const report = await stop.json();
    assertEquals([report.status, report.error], ["failed", ORPHANED_AT_STOP]);
    const again = await fetch(`${serve.url}/v1/playbacks/${id}/stop`, { method: "POST" });
    assertEquals(again.status, 409);
    assertEquals((await again.json()).error.code, "playback_ended");
  } finally {
    try {
      replay.kill("SIGKILL");
    } catch { /* exited */ }
    await replay.status;
    serve.child.kill("SIGTERM");
    await serve.child.status;
    await serve.stderr;
    // the killed replay's Chromium (its parent gone): killed, then its profile removed
    for (let i = 0; i < 30 && (await chromiumUnder(tmp)).length > 0; i++) {
      await killChromiumUnder(tmp);
      await new Promise((r) => setTimeout(r, 100));
    }
    await web.close();
    await Deno.remove(dir, { recursive: true }).catch(async () => {
      await new Promise((r) => setTimeout(r, 500));
      await Deno.remove(dir, { recursive: true });
    });
  }
});
