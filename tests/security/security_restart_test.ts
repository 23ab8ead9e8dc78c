/**
 * What `cairn serve` does at start (a real server process, a real SQLite file, real Chromium):
 * it ends only the sessions a Cairn process noted as its own — an ingested session left open
 * and a session a client writes over HTTP across a clean restart are left alone, and the
 * client's next append is taken — and it removes the browser profile folder of the playback a
 * SIGKILLed server was running, as it does blaze's.
 */
import { assert, assertEquals } from "../_fixtures/assert.ts";
import {
  cairn,
  killChildAndChromium,
  killChromiumUnder,
  startServe,
} from "../_fixtures/cli_run.ts";
import { serveFolder } from "../_fixtures/web_server.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { waitUntil } from "../_fixtures/wait.ts";

function post(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function types(db: string, id: string): Promise<string[]> {
  const store = SqliteEventStore.open(db, { readOnly: true });
  try {
    const out: string[] = [];
    for await (const e of store.readStream(`session-${id}`)) out.push(e.type);
    return out;
  } finally {
    store.close();
  }
}

async function stop(serve: { child: Deno.ChildProcess; stderr: Promise<string> }) {
  serve.child.kill("SIGTERM");
  assertEquals((await serve.child.status).code, 0);
  return await serve.stderr;
}

Deno.test("serve at start leaves an ingested open session and an HTTP client's session alone; the client appends after a restart", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-sec-restart-" });
  const db = `${dir}/cairn.db`;
  try {
    // an agent session exported mid-run (no SessionEnded), ingested
    const file = `${dir}/open.events.jsonl`;
    await Deno.writeTextFile(
      file,
      [
        { type: "SessionStarted", data: { sessionId: "x", mode: "agent", platform: "web" } },
        { type: "StepStarted", data: { index: 0, text: "Open the shop" } },
      ].map((e) => JSON.stringify(e)).join("\n") + "\n",
    );
    const ingested = await cairn(["ingest", file, "--db", db]);
    assertEquals(ingested.code, 0, ingested.stderr);
    const importedId = ingested.stdout.trim();

    let serve = await startServe(["--db", db], {}, dir);
    const base = `${serve.url}/v1/streams/session-client/events`;
    const first = await post(base, {
      events: [
        { type: "SessionStarted", data: { sessionId: "client", mode: "agent", platform: "web" } },
        { type: "StepStarted", data: { index: 0, text: "Open the shop" } },
      ],
    });
    assertEquals(first.status, 201, await first.text());
    const said = await stop(serve);
    assert(!said.includes("left open"), said);

    serve = await startServe(["--db", db], {}, dir);
    const next = await post(`${serve.url}/v1/streams/session-client/events`, {
      events: [{ type: "StepEnded", data: { index: 0, ok: true } }],
    });
    assertEquals(next.status, 201, await next.text());
    const again = await stop(serve);
    assert(!again.includes("left open"), again);
    assertEquals(await types(db, "client"), ["SessionStarted", "StepStarted", "StepEnded"]);
    assertEquals(await types(db, importedId), ["SessionStarted", "StepStarted"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a SIGKILLed serve's playback browser profile is noted and removed by the next serve", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-sec-profile-" });
  const tmp = `${dir}/tmp`;
  await Deno.mkdir(tmp);
  const web = serveFolder();
  const db = `${dir}/cairn.db`;
  let serve = await startServe(["--db", db], { TMPDIR: tmp });
  try {
    const res = await post(`${serve.url}/v1/playbacks`, {
      actions: [
        { action: "navigate", url: web.url + "login.html", timestamp_ms: 0 },
        { action: "navigate", url: web.url + "cart.html", timestamp_ms: 30_000 },
      ],
      timing: "recorded",
    });
    assertEquals(res.status, 202);
    const { playbackId } = await res.json();
    // wait until the playback has opened its page (its browser is running)
    await waitUntil("the playback's first page", async () => {
      const r = await (await fetch(`${serve.url}/v1/playbacks/${playbackId}`)).json();
      return r.results?.length > 0;
    });
    const profiles = async () => {
      const out: string[] = [];
      for await (const e of Deno.readDir(tmp)) {
        if (e.isDirectory && e.name.startsWith("cairn-chrome-")) out.push(`${tmp}/${e.name}`);
      }
      return out;
    };
    const left = await profiles();
    assertEquals(left.length, 1, "the playback's browser profile");
    serve.child.kill("SIGKILL");
    await serve.child.status;
    await serve.stderr;
    await killChromiumUnder(tmp);
    assertEquals(await profiles(), left, "a SIGKILLed server leaves its profile");

    serve = await startServe(["--db", db], { TMPDIR: tmp });
    assertEquals(await profiles(), [], "removed at restart, not 10 minutes later");
    const said = await stop(serve);
    assert(said.includes(left[0]!.split("/").at(-1)!), said);
  } finally {
    await killChildAndChromium(serve.child, tmp);
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a cairn record killed with SIGKILL noted its session: the next serve ends it interrupted, and removes the note", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-sec-record-" });
  const tmp = `${dir}/tmp`;
  await Deno.mkdir(tmp);
  const web = serveFolder();
  const db = `${dir}/cairn.db`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "-A",
      "--no-check",
      new URL("../../main.ts", import.meta.url).pathname,
      "record",
      "--db",
      db,
      "--url",
      web.url + "login.html",
      "--prompt",
      "Sign in",
      "--headless",
    ],
    env: { TMPDIR: tmp },
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    const deadline = Date.now() + 60_000;
    while (!/Recording session (\S+) at/.test(out) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    const id = /Recording session (\S+) at/.exec(out)?.[1];
    assert(id, out);
    child.kill("SIGKILL");
    await child.status;
    await reader.cancel().catch(() => {});
    await killChromiumUnder(tmp);
    const note = `${db}.record-${child.pid}.sessions.json`;
    assertEquals(JSON.parse(await Deno.readTextFile(note)).sessions, [id]);
    const serve = await startServe(["--db", db], {}, dir);
    const said = await stop(serve);
    assert(said.includes(`ended 1 recording left open`), said);
    assertEquals((await types(db, id!)).at(-1), "SessionEnded");
    let left = true;
    await Deno.stat(note).catch(() => left = false);
    assert(!left, "the note is removed");
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.status;
    await web.close();
    await Deno.remove(dir, { recursive: true });
  }
});
