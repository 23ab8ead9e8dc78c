import { DatabaseSync } from "node:sqlite";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { Checkpointer } from "../../events/checkpointer.ts";
import { migrate } from "../../events/migrations.ts";
import { syntheticSession } from "../_fixtures/store_fixtures.ts";
import type { NewEvent } from "../../events/schemas.ts";
import { assert, assertEquals } from "../_fixtures/assert.ts";
import { waitUntil } from "../_fixtures/wait.ts";

/** `PRAGMA wal_checkpoint(PASSIVE)` from a fresh connection: [busy, WAL frames, backfilled]. */
function walState(path: string): [number, number, number] {
  const db = new DatabaseSync(path);
  try {
    const r = db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as Record<string, number>;
    return [r.busy!, r.log!, r.checkpointed!];
  } finally {
    db.close();
  }
}

Deno.test("Checkpointer copies the WAL back on a worker thread while the owner keeps writing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_ckpt_" });
  const path = `${dir}/c.db`;
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0");
  migrate(db);
  const insert = db.prepare(
    "INSERT INTO events (position, stream_id, stream_version, type, schema_version, data, meta) VALUES (?, 's', ?, 'T', 1, ?, '{}')",
  );
  const ckpt = new Checkpointer(path);
  try {
    assert(!ckpt.started, "no thread before the first request");
    for (let i = 1; i <= 2000; i++) insert.run(i, i, "x".repeat(1000));
    assert(ckpt.request());
    // the checkpoint runs on its own thread: awaited (bounded), as it can take seconds when busy
    await waitUntil("the checkpoint to run", () => ckpt.runs > 0, { everyMs: 10 });
    assertEquals(ckpt.runs, 1);
    // everything written before the request is now in the database file
    const [, frames, backfilled] = walState(path);
    assert(frames > 500, `WAL frames ${frames}`);
    assertEquals(backfilled, frames);
  } finally {
    ckpt.close();
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SqliteEventStore asks the checkpointer after ~1 MB and close() stops the thread", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_ckpt_" });
  const path = `${dir}/s.db`;
  const store = SqliteEventStore.open(path);
  const events = syntheticSession(3000);
  for (const e of events) store.appendSync("session-a", [e]);
  store.close();
  // the worker closed its connection: the file opens, holds every event, and is not locked
  const again = SqliteEventStore.open(path);
  try {
    let n = 0;
    for (const e of again.readAllSync()) assertEquals(e.position, ++n);
    assertEquals(n, 3000);
    assertEquals(walState(path)[0], 0);
  } finally {
    again.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a store left open with its checkpointer running does not keep the process alive", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_ckpt_" });
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-q",
        "-A",
        import.meta.resolve("../_fixtures/store_child.ts"),
        "leave-open",
        `${dir}/s.db`,
        "2000",
      ],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    const out = await child.output();
    clearTimeout(timer);
    assertEquals(new TextDecoder().decode(out.stdout).trim(), "appended");
    assertEquals(out.code, 0, new TextDecoder().decode(out.stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("appends through two connections to one file keep versions and positions in step", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_ckpt_" });
  const a = SqliteEventStore.open(`${dir}/s.db`);
  const b = SqliteEventStore.open(`${dir}/s.db`);
  try {
    const step = (index: number): NewEvent => ({ type: "StepStarted", data: { index, text: "t" } });
    // each connection remembers the head and version after its own appends; the other's
    // commits in between must be seen (data_version), or versions and positions would repeat
    for (let i = 0; i < 6; i++) {
      const store = i % 3 === 2 ? b : a;
      const r = store.appendSync("session-x", [step(i)], { expectedVersion: i });
      assertEquals(r.positions, [i + 1]);
      assertEquals(r.streamVersion, i + 1);
    }
    // a deleted tail: positions never come back, on either connection
    await a.deleteStream("session-x");
    assertEquals(b.appendSync("session-y", [step(0)]).positions, [7]);
    assertEquals(a.appendSync("session-x", [step(0)], { expectedVersion: "no_stream" }).positions, [
      8,
    ]);
    assertEquals(a.appendSync("session-y", [step(1)]).streamVersion, 2);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});
