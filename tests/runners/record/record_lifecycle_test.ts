/**
 * How `cairn record` ends other than by `stop`: SIGTERM, the browser going away, and input that
 * is bad (refused before anything starts) or fails late (the session is ended, never left open).
 * Real CLI processes, real headless Chromium, real SQLite.
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { RecordingV1 } from "../../../engine/formats/recording_v1.ts";
import { withDeadline } from "../../../drivers/with_deadline.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { cairn, ROOT } from "../../_fixtures/cli_run.ts";

/** The pids of the processes whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const pids: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      // pid (comm) state ppid …: comm may hold spaces, so read after its closing parenthesis
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) pids.push(Number(e.name));
    } catch { /* gone meanwhile */ }
  }
  return pids;
}

/** Whether a process is alive (a zombie counts as gone). */
function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Polls `check` every 100 ms for at most `ms`. */
async function waitFor(check: () => boolean, ms: number, what: string): Promise<void> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Not within ${ms} ms: ${what}`);
}

async function sessionEvents(db: string, id: string) {
  const store = SqliteEventStore.open(db);
  try {
    const events = [];
    for await (const e of store.readStream(`session-${id}`)) events.push(e);
    return events;
  } finally {
    store.close();
  }
}

/**
 * Starts `cairn record --headless` on login.html in its own Chromium, waits until it records,
 * calls `end` with the record process and its Chromium, and returns what happened.
 */
async function recordUntil(
  end: (child: Deno.ChildProcess, chromium: number) => void,
) {
  const dir = await Deno.makeTempDir({ prefix: "cairn_rec_life_" });
  const server = serveFolder();
  const out = `${dir}/rec.json`;
  const db = `${dir}/cairn.db`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "-A",
      `${ROOT}main.ts`,
      "record",
      "--db",
      db,
      "--url",
      server.url + "login.html",
      "--prompt",
      "Sign in",
      "--out",
      out,
      "--headless",
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  let chromium = 0;
  try {
    await waitFor(
      () => {
        chromium = childrenOf(child.pid).find((p) =>
          Deno.readTextFileSync(`/proc/${p}/cmdline`).includes("chrom")
        ) ?? 0;
        return chromium > 0; // the store is open by then
      },
      30_000,
      "record launches Chromium",
    );
    // recording once the page is open: SessionStarted and NavigationOccurred are stored
    for (let i = 0; i < 300; i++) {
      const store = SqliteEventStore.open(db);
      const streams = await store.streams("session-");
      store.close();
      if (streams.length === 1 && streams[0]!.version >= 2) {
        break;
      }
      await new Promise((r) =>
        setTimeout(r, 100)
      );
    }
    end(child, chromium);
    const status = await withDeadline(child.status, 30_000, () => new Error("record still runs"));
    const id = /Recording session (\S+) at/.exec(await stdout)?.[1];
    assert(id, await stdout);
    return {
      code: status.code,
      stderr: await stderr,
      events: await sessionEvents(db, id),
      recording: RecordingV1.parse(JSON.parse(await Deno.readTextFile(out))),
      chromium,
    };
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.status;
    // a Chromium that record left behind (the defect this file guards against) is not left here
    if (chromium > 0 && alive(chromium)) Deno.kill(chromium, "SIGKILL");
    await stdout.catch(() => "");
    await stderr.catch(() => "");
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("cairn record stopped by SIGTERM ends the session, writes the file and closes its Chromium", async () => {
  const r = await recordUntil((child) => child.kill("SIGTERM"));
  assertEquals(r.code, 0, r.stderr);
  assertEquals(r.events.at(-1)?.type, "SessionEnded");
  assertEquals(r.recording.summary?.ended_reason, "completed");
  // closed by the record before it exits; its process is reaped a moment later (seconds on a
  // busy machine): 15 s still tells it from a browser left running
  await waitFor(() => !alive(r.chromium), 15_000, `Chromium ${r.chromium} is gone`);
});

Deno.test("cairn record whose browser is killed ends the session interrupted, writes the file, exit 1", async () => {
  const r = await recordUntil((_, chromium) => Deno.kill(chromium, "SIGKILL"));
  assertEquals(r.code, 1, r.stderr);
  assertStringIncludes(r.stderr, "the browser closed while recording");
  const ended = r.events.at(-1);
  assertEquals(ended?.type, "SessionEnded");
  assertEquals(ended?.data, {
    reason: "interrupted",
    error: "The browser closed while recording",
  });
  assertEquals(r.recording.summary?.ended_reason, "interrupted");
});

Deno.test("cairn record refuses a --url that is no page and a --port in use: exit 2, one line, nothing stored", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_rec_bad_" });
  const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const db = `${dir}/cairn.db`;
    const base = ["record", "--db", db, "--prompt", "p", "--headless", "--out", `${dir}/r.json`];
    for (const url of ["javascript:alert(1)", "chrome://settings"]) {
      const r = await cairn([...base, "--url", url]);
      assertEquals(r.code, 2, r.stderr);
      assertEquals(r.stderr.trim().split("\n").length, 1, r.stderr);
      assertStringIncludes(r.stderr, `cairn record: --url ${url}: expected an http, https`);
    }
    const port = (busy.addr as Deno.NetAddr).port;
    const r = await cairn([...base, "--url", "about:blank", "--port", String(port)]);
    assertEquals([r.code, r.stderr], [2, `cairn record: --port: port ${port} is in use\n`]);
    const store = SqliteEventStore.open(db);
    const streams = await store.streams("session-");
    store.close();
    assertEquals(streams.length, 0);
    assert(!(await Deno.stat(`${dir}/r.json`).then(() => true, () => false)));
  } finally {
    busy.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn record whose page cannot be opened ends the session failed, exit 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_rec_nav_" });
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close(); // nothing listens there: the connection is refused
  try {
    const db = `${dir}/cairn.db`;
    const r = await cairn([
      "record",
      "--db",
      db,
      "--url",
      `http://127.0.0.1:${port}/`,
      "--prompt",
      "p",
      "--headless",
    ]);
    assertEquals(r.code, 1, r.stderr);
    assertStringIncludes(r.stderr, "ERR_CONNECTION_REFUSED");
    const store = SqliteEventStore.open(db);
    const [stream] = await store.streams("session-");
    store.close();
    assert(stream);
    const events = await sessionEvents(db, stream.streamId.slice("session-".length));
    const ended = events.at(-1);
    assertEquals(ended?.type, "SessionEnded");
    assertEquals((ended?.data as { reason: string }).reason, "failed");
    assertStringIncludes((ended?.data as { error: string }).error, "ERR_CONNECTION_REFUSED");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
