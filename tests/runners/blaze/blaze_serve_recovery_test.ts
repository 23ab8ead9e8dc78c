import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { killChildAndChromium, killChromiumUnder, startServe } from "../../_fixtures/cli_run.ts";
import { ORPHANED_SESSION, ORPHANED_SESSION_AT_END } from "../../../cli/_orphaned_runs.ts";
import { shareRunsLock } from "../../../cli/_runs_lock.ts";
import { profilesNotePath } from "../../../cli/_serve_profiles.ts";
import { blazeCli } from "../../_fixtures/blaze_cli_run.ts";

const post = (url: string, body: unknown) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

Deno.test("cairn serve restarted after a SIGKILL ends the blaze session it held as interrupted and removes its browser's profile", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_blaze_kill_" });
  const tmp = `${dir}/tmp`;
  await Deno.mkdir(tmp);
  const web = serveFolder();
  const db = `${dir}/c.db`;
  let serve = await startServe(["--db", db], { TMPDIR: tmp });
  try {
    const started = await post(`${serve.url}/v1/blaze/sessions`, {
      url: web.url + "login.html",
      prompt: "Sign in as alice",
    });
    assertEquals(started.status, 201);
    const { sessionId } = await started.json();
    const tool = (name: string, params: unknown) =>
      post(`${serve.url}/v1/blaze/sessions/${sessionId}/tools/${name}`, params);
    const snap = await (await tool("snapshot", {})).json();
    const email = snap.output.match(/textbox "Email"[^\n]*\[ref=(\w+)\]/)?.[1];
    assert(email, snap.output);
    const typed =
      await (await tool("type", { ref: email, text: "alice@example.com", step: "Sign in" }))
        .json();
    assert(typed.ok, JSON.stringify(typed));
    // the server noted its browser's profile folder beside the log
    const note = JSON.parse(await Deno.readTextFile(profilesNotePath(db, serve.child.pid)));
    assertEquals(note.profiles.length, 1);
    const profile: string = note.profiles[0];
    assert(profile.startsWith(`${tmp}/cairn-chrome-`), profile);

    serve.child.kill("SIGKILL");
    await serve.child.status;
    await serve.stderr;
    await killChromiumUnder(tmp);
    assert(await exists(profile), "a SIGKILLed server leaves its profile");
    // an unrelated Cairn profile in the same temp folder is not the dead server's
    const other = await Deno.makeTempDir({ dir: tmp, prefix: "cairn-chrome-" });

    serve = await startServe(["--db", db], { TMPDIR: tmp });
    const store = SqliteEventStore.open(db);
    try {
      const events = await Array.fromAsync(store.readStream(`session-${sessionId}`));
      const ends = events.filter((e) => e.type === "SessionEnded");
      assertEquals(ends.map((e) => e.data), [{ reason: "interrupted", error: ORPHANED_SESSION }]);
      assertEquals(events.at(-1)?.type, "SessionEnded");
      // the open step was closed as not ok before the end
      assertEquals(events.at(-2)?.type, "StepEnded");
      assertEquals((events.at(-2)?.data as { ok?: boolean }).ok, false);
    } finally {
      store.close();
    }
    assertEquals(await exists(profile), false, "the dead server's profile is removed");
    assertEquals(await exists(profilesNotePath(db, 1)), false);
    assert(await exists(other), "another profile is left alone");

    // the trail still projects, with the typed step
    const trail = await fetch(`${serve.url}/v1/sessions/${sessionId}/trail`);
    assertEquals(trail.status, 200);
    assertStringIncludes(await trail.text(), "alice@example.com");
    // ended now: the end route says so rather than 404
    const end = await post(`${serve.url}/v1/blaze/sessions/${sessionId}/tools/end`, {});
    assertEquals(end.status, 409);
    assertEquals((await end.json()).error.code, "session_ended");

    serve.child.kill("SIGTERM");
    assertEquals((await serve.child.status).code, 0);
    const log = await serve.stderr;
    assertStringIncludes(log, `ended 1 blaze session left open (interrupted`);
    assertStringIncludes(log, `removed its browser's profile ${profile}`);
  } finally {
    await killChildAndChromium(serve.child, tmp);
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("tools/end on a logged blaze session no live process holds ends it interrupted, once; 409 not_owned while another process has the log open", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_blaze_end_" });
  const db = `${dir}/c.db`;
  const store = SqliteEventStore.open(db);
  await store.append("session-left", [
    {
      type: "SessionStarted",
      data: { sessionId: "left", mode: "agent", platform: "web", url: "http://127.0.0.1:1/" },
    },
    { type: "StepStarted", data: { index: 0, text: "Sign in" } },
  ]);
  await store.append("session-human", [
    { type: "SessionStarted", data: { sessionId: "human", mode: "human", platform: "web" } },
  ]);
  // another process writing (as a live server or the blaze daemon): start-up ends nothing
  let lock: Deno.FsFile | undefined = shareRunsLock(db)!;
  const serve = await startServe(["--db", db]);
  try {
    const end = () =>
      post(`${serve.url}/v1/blaze/sessions/left/tools/end`, { reason: "completed" });
    const held = await end();
    assertEquals(held.status, 409);
    assertEquals((await held.json()).error.code, "not_owned");
    const other = await post(`${serve.url}/v1/blaze/sessions/left/tools/snapshot`, {});
    assertEquals(other.status, 404);
    assertStringIncludes((await other.json()).error.message, "end it with tools/end");

    lock.close(); // that process is gone
    lock = undefined;
    const ended = await end();
    assertEquals(ended.status, 200);
    const body = await ended.json();
    assertEquals([body.ok, body.forced], [true, false]);
    assertStringIncludes(body.output, "Session ended (interrupted)");
    const again = await end();
    assertEquals(again.status, 409);
    assertEquals((await again.json()).error.code, "session_ended");
    const events = await Array.fromAsync(store.readStream("session-left"));
    assertEquals(events.map((e) => e.type), [
      "SessionStarted",
      "StepStarted",
      "StepEnded",
      "SessionEnded",
    ]);
    assertEquals(events[3]!.data, { reason: "interrupted", error: ORPHANED_SESSION_AT_END });
    // a human recording is not a blaze session: not ended, not found
    const human = await post(`${serve.url}/v1/blaze/sessions/human/tools/end`, {});
    assertEquals(human.status, 404);
    await human.body?.cancel();
    assertEquals((await Array.fromAsync(store.readStream("session-human"))).length, 1);
  } finally {
    serve.child.kill("SIGTERM");
    await serve.child.status;
    await serve.stderr;
    lock?.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn serve started beside a live blaze daemon on the same log leaves the daemon's open session alone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_blaze_daemon_serve_" });
  const db = `${dir}/c.db`;
  const web = serveFolder();
  let serve: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    const started = await blazeCli(db, "start", "--url", web.url + "login.html", "--prompt", "x");
    assertEquals(started.code, 0, started.stderr);
    const sessionId = started.stdout.match(/Session (\S+) started/)?.[1];
    assert(sessionId, started.stdout);
    serve = await startServe(["--db", db]);
    const store = SqliteEventStore.open(db);
    try {
      const types = (await Array.fromAsync(store.readStream(`session-${sessionId}`)))
        .map((e) => e.type);
      assert(!types.includes("SessionEnded"), `the daemon's session was ended: ${types}`);
    } finally {
      store.close();
    }
    // and the daemon still drives it
    const snap = await blazeCli(db, "snapshot");
    assertEquals(snap.code, 0, snap.stderr);
    assertStringIncludes(snap.stdout, "Sign in");
  } finally {
    if (serve) {
      serve.child.kill("SIGTERM");
      await serve.child.status;
      await serve.stderr;
    }
    await blazeCli(db, "end", "--out", dir);
    // a daemon the end could not stop (the test failed) does not outlive it
    const state = await Deno.readTextFile(`${db}.blaze.json`).then(JSON.parse, () => undefined);
    if (state?.pid) {
      try {
        Deno.kill(state.pid, "SIGTERM");
      } catch { /* gone */ }
    }
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
});
