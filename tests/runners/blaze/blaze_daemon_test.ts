import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { alive, blazeCli as cairn } from "../../_fixtures/blaze_cli_run.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

interface StateFile {
  pid: number;
  sessions?: string[];
  browsers?: number[];
}

async function stateOf(db: string): Promise<StateFile> {
  return JSON.parse(await Deno.readTextFile(`${db}.blaze.json`));
}

function exists(path: string): Promise<boolean> {
  return Deno.stat(path).then(() => true, () => false);
}

async function endReasons(db: string): Promise<Record<string, string[]>> {
  const store = SqliteEventStore.open(db);
  try {
    const out: Record<string, string[]> = {};
    for (const s of await store.streams("session-")) {
      const reasons: string[] = [];
      for await (const e of store.readStream(s.streamId)) {
        if (e.type === "SessionEnded") reasons.push(e.data.reason);
      }
      out[s.streamId.slice("session-".length)] = reasons;
    }
    return out;
  } finally {
    store.close();
  }
}

async function recorded(db: string, type: string): Promise<boolean> {
  const store = SqliteEventStore.open(db);
  try {
    for await (const e of store.readAll()) if (e.type === type) return true;
    return false;
  } finally {
    store.close();
  }
}

function startedId(stdout: string): string {
  const m = /^Session (\S+) started/.exec(stdout);
  assert(m, stdout);
  return m[1]!;
}

/**
 * Waits for a process to exit: at most 20 s, as a daemon or a browser ends a moment after the
 * answer, and that moment is seconds on a busy machine.
 */
async function gone(pid: number): Promise<boolean> {
  return await waitUntil(`process ${pid} to exit`, () => !alive(pid), { timeoutMs: 20_000 })
    .then(() => true, () => false);
}

/** `blaze start` on cart.html: the session id, the daemon's pid and its browsers' pids. */
async function startOnCart(
  db: string,
  base: string,
): Promise<{ id: string; pid: number; browsers: number[] }> {
  const start = await cairn(db, "start", "--url", base + "cart.html", "--prompt", "x");
  assertEquals(start.code, 0, start.stderr);
  const state = await stateOf(db);
  return { id: startedId(start.stdout), pid: state.pid, browsers: state.browsers ?? [] };
}

Deno.test("cairn blaze keeps a daemon per database file (0600 state file) and end --session stops it only with its last session", async () => {
  const dir = await Deno.makeTempDir();
  const b = `${dir}/b.db`;
  const c = `${dir}/c.db`;
  const server = serveFolder();
  const pids: number[] = [];
  try {
    const sb = await cairn(b, "start", "--url", server.url + "cart.html", "--prompt", "B");
    assertEquals(sb.code, 0, sb.stderr);
    const sc = await cairn(c, "start", "--url", server.url + "cart.html", "--prompt", "C");
    assertEquals(sc.code, 0, sc.stderr);
    const [stateB, stateC] = [await stateOf(b), await stateOf(c)];
    pids.push(stateB.pid, stateC.pid);
    assert(stateB.pid !== stateC.pid, "one daemon per database");
    assertEquals((await Deno.stat(`${c}.blaze.json`)).mode! & 0o777, 0o600);
    assertEquals(Object.keys(await endReasons(c)), [startedId(sc.stdout)]);
    assertEquals(Object.keys(await endReasons(b)), [startedId(sb.stdout)]);

    // a second session on c.db shares its daemon; ending the first by a prefix leaves it alone
    const sc2 = await cairn(c, "start", "--url", server.url + "cart.html", "--prompt", "C2");
    assertEquals(sc2.code, 0, sc2.stderr);
    const [c1, c2] = [startedId(sc.stdout), startedId(sc2.stdout)];
    assertEquals((await stateOf(c)).sessions, [c1, c2]);
    const unknown = await cairn(c, "end", "--session", "nope");
    assertEquals(unknown.code, 2, unknown.stderr);
    assertStringIncludes(unknown.stderr, '"nope"');
    const end1 = await cairn(c, "end", "--session", c2.slice(0, 8), "--out", `${dir}/out`);
    assertEquals(end1.code, 0, end1.stderr);
    assert(alive(stateC.pid), "the daemon serves the other session still");
    const snap = await cairn(c, "snapshot", "--session", c1.slice(0, 8));
    assertEquals(snap.code, 0, snap.stderr);
    assertStringIncludes(snap.stdout, "Add one Coffee");
    // the ended session is named as ended; a snapshot flag on another tool is a usage error
    const again = await cairn(c, "snapshot", "--session", c2);
    assertEquals(again.code, 1, again.stderr);
    assertStringIncludes(again.stderr, `Blaze session ${c2} has ended`);
    const noTarget = await cairn(c, "snapshot");
    assertEquals(noTarget.code, 2, noTarget.stderr);
    assertStringIncludes(noTarget.stderr, `live sessions: ${c1} (pick one with --session)`);
    const flag = await cairn(c, "tap", "x=10,y=10", "--diff", "--session", c1);
    assertEquals([flag.code, flag.stderr], [
      2,
      "cairn blaze tap: --diff is for snapshot only\n",
    ]);
    // a screenshot into a folder that does not exist yet creates it
    const shot = await cairn(c, "screenshot", "--session", c1, "--out", `${dir}/new/dir/a.png`);
    assertEquals(shot.code, 0, shot.stderr);
    assert(await exists(`${dir}/new/dir/a.png`));
    const end2 = await cairn(c, "end", "--session", c1, "--out", `${dir}/out`);
    assertEquals(end2.code, 0, end2.stderr);
    assert(await gone(stateC.pid), "the daemon stops with its last session");
    assertEquals(await endReasons(c), { [c1]: ["completed"], [c2]: ["completed"] });
    assert(alive(stateB.pid), "b.db's daemon is another");
    assertEquals((await cairn(b, "end", "--out", `${dir}/out`)).code, 0);
    assert(await gone(stateB.pid));
  } finally {
    for (const pid of pids) if (alive(pid)) Deno.kill(pid, "SIGTERM");
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn blaze after its daemon was killed with SIGKILL names it, ends its session as interrupted and kills its browser", async () => {
  const dir = await Deno.makeTempDir();
  const db = `${dir}/cairn.db`;
  const server = serveFolder();
  let pid: number | undefined;
  const browsers: number[] = [];
  try {
    const started = await startOnCart(db, server.url);
    const id = started.id;
    pid = started.pid;
    browsers.push(...started.browsers);
    assertEquals(browsers.length, 1);
    assertEquals((await cairn(db, "step", "Look")).code, 0);

    // killed during a call: the call names the daemon and cleans up
    const hanging = cairn(db, "navigate", `url=${server.url}hang.html`);
    // kill the daemon once the navigation is under way (its ActionPerformed is recorded)
    await waitUntil("the navigation to be recorded", () => recorded(db, "ActionPerformed"));
    await new Promise((r) => setTimeout(r, 200));
    Deno.kill(pid, "SIGKILL");
    const during = await hanging;
    assertEquals(during.code, 1, during.stderr);
    assertStringIncludes(during.stderr, `blaze daemon (pid ${pid}) died during the call`);
    assertStringIncludes(during.stderr, `session ${id} was left open — marked interrupted`);
    assert(await gone(browsers[0]!), "the orphaned browser is killed");
    assert(!(await exists(`${db}.blaze.json`)), "the stale state file is removed");
    assertEquals(await endReasons(db), { [id]: ["interrupted"] });
  } finally {
    for (const p of [pid, ...browsers]) if (p !== undefined && alive(p)) Deno.kill(p, "SIGKILL");
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn blaze snapshot after its daemon was killed says the daemon is gone and ends its session as interrupted", async () => {
  const dir = await Deno.makeTempDir();
  const db = `${dir}/cairn.db`;
  const server = serveFolder();
  let pid: number | undefined;
  const browsers: number[] = [];
  try {
    const started = await startOnCart(db, server.url);
    const id = started.id;
    pid = started.pid;
    browsers.push(...started.browsers);
    Deno.kill(pid, "SIGKILL");
    assert(await gone(pid));
    const next = await cairn(db, "snapshot");
    assertEquals(next.code, 2, next.stderr);
    assertStringIncludes(
      next.stderr,
      `the blaze daemon (pid ${pid}) is gone; its session ${id} was left open — marked interrupted`,
    );
    assert(browsers.length === 1 && await gone(browsers[0]!), "the orphaned browser is killed");
    assertEquals(await endReasons(db), { [id]: ["interrupted"] });
    // a new start works on a fresh daemon
    const again = await cairn(db, "start", "--url", server.url + "cart.html", "--prompt", "y");
    assertEquals(again.code, 0, again.stderr);
    pid = (await stateOf(db)).pid;
    assertEquals((await cairn(db, "end", "--out", `${dir}/out`)).code, 0);
  } finally {
    for (const p of [pid, ...browsers]) if (p !== undefined && alive(p)) Deno.kill(p, "SIGKILL");
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** The `--user-data-dir` a running browser was launched with. */
function profileOf(browserPid: number): string {
  const args = Deno.readTextFileSync(`/proc/${browserPid}/cmdline`).split("\0");
  const flag = args.find((a) => a.startsWith("--user-data-dir="));
  assert(flag, args.join(" "));
  return flag.slice("--user-data-dir=".length);
}

Deno.test("cairn blaze after its daemon was killed with SIGKILL removes that browser's profile folder and no live one", async () => {
  const dir = await Deno.makeTempDir();
  const [b, c] = [`${dir}/b.db`, `${dir}/c.db`];
  const server = serveFolder();
  const pids: number[] = [];
  const profiles: string[] = [];
  try {
    const other = await startOnCart(b, server.url);
    const killed = await startOnCart(c, server.url);
    pids.push(other.pid, ...other.browsers, killed.pid, ...killed.browsers);
    const [otherProfile, killedProfile] = [
      profileOf(other.browsers[0]!),
      profileOf(killed.browsers[0]!),
    ];
    profiles.push(otherProfile, killedProfile);
    assert(otherProfile !== killedProfile);
    Deno.kill(killed.pid, "SIGKILL");
    assert(await gone(killed.pid));
    const next = await cairn(c, "snapshot");
    assertEquals(next.code, 2, next.stderr);
    assertStringIncludes(next.stderr, `removed its browser's profile ${killedProfile}`);
    assert(await gone(killed.browsers[0]!), "the orphaned browser is killed");
    assert(!(await exists(killedProfile)), "the dead browser's profile folder is left behind");
    // the other daemon's browser and profile are untouched, and it still serves its session
    assert(await exists(otherProfile), "another daemon's live profile was removed");
    assert(alive(other.browsers[0]!));
    const snap = await cairn(b, "snapshot");
    assertEquals(snap.code, 0, snap.stderr);
    assertStringIncludes(snap.stdout, "Add one Coffee");
    assertEquals((await cairn(b, "end", "--out", `${dir}/out`)).code, 0);
    assert(await gone(other.pid));
  } finally {
    for (const p of pids) if (alive(p)) Deno.kill(p, "SIGKILL");
    for (const p of profiles) await Deno.remove(p, { recursive: true }).catch(() => {});
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** Pids of the running blaze daemons of a database (by their command line). */
function daemonsOf(db: string): number[] {
  const pids: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const args = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).split("\0");
      if (args.includes("__daemon") && args.includes(db)) pids.push(Number(entry.name));
    } catch { /* exited meanwhile */ }
  }
  return pids;
}

Deno.test("cairn blaze start run three times at once on one database starts one daemon that holds the three sessions", async () => {
  const dir = await Deno.makeTempDir();
  const db = `${dir}/cairn.db`;
  const server = serveFolder();
  try {
    const starts = await Promise.all(
      ["A", "B", "C"].map((p) =>
        cairn(db, "start", "--url", server.url + "cart.html", "--prompt", p)
      ),
    );
    for (const s of starts) assertEquals(s.code, 0, s.stderr);
    const ids = starts.map((s) => startedId(s.stdout));
    const daemons = daemonsOf(db);
    assertEquals(daemons.length, 1, `daemons of one database: ${daemons.join(", ")}`);
    const state = await stateOf(db);
    assertEquals(state.pid, daemons[0]);
    assertEquals([...state.sessions ?? []].sort(), [...ids].sort());
    assertEquals(state.browsers?.length, 3);
    assert(!(await exists(`${db}.blaze.lock`)), "the start lock is released");
    for (const id of ids) {
      const end = await cairn(db, "end", "--session", id, "--out", `${dir}/out`);
      assertEquals(end.code, 0, end.stderr);
    }
    assert(await gone(state.pid), "the daemon stops with its last session");
  } finally {
    for (const pid of daemonsOf(db)) Deno.kill(pid, "SIGTERM");
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn blaze start waits for the start lock and takes it over from a holder killed with SIGKILL", async () => {
  const dir = await Deno.makeTempDir();
  const db = `${dir}/cairn.db`;
  const server = serveFolder();
  // another process holds the lock, as a start killed in the middle would
  const holder = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `const f = Deno.openSync(Deno.args[0], { create: true, write: true });
       f.lockSync(true);
       f.writeSync(new TextEncoder().encode(String(Deno.pid)));
       console.log("locked");
       setTimeout(() => {}, 60_000);`,
      `${db}.blaze.lock`,
    ],
    stdout: "piped",
  }).spawn();
  try {
    const reader = holder.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assertEquals((await reader.read()).value?.trim(), "locked");
    await reader.cancel();
    const start = cairn(db, "start", "--url", server.url + "cart.html", "--prompt", "x");
    await new Promise((r) => setTimeout(r, 1_500));
    assertEquals(daemonsOf(db), [], "a start ran while another held the lock");
    holder.kill("SIGKILL");
    const started = await start;
    assertEquals(started.code, 0, started.stderr);
    assertEquals(daemonsOf(db).length, 1);
    assertEquals((await cairn(db, "end", "--out", `${dir}/out`)).code, 0);
    assert(!(await exists(`${db}.blaze.lock`)));
  } finally {
    try {
      holder.kill("SIGKILL");
    } catch { /* already gone */ }
    await holder.status;
    for (const pid of daemonsOf(db)) Deno.kill(pid, "SIGTERM");
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
