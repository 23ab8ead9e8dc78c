/**
 * Event-store append benches (`deno bench -A scripts/store_bench.ts`), on real SQLite files in
 * a temp dir with the event mix of a capture at ~1 KB of JSON per event
 * (`tests/_fixtures/store_fixtures.ts`). Events/s = events per iteration ÷ time per iteration. Reads and
 * `stateAt` are in `scripts/store_read_bench.ts`: run in this process after the appends, they
 * would share the two cores with the checkpoint copying the appends leave behind.
 *
 * Each row appends to a file of its own, and the order is deliberate: a row that follows
 * another pays for the background copy and writeback of what that row wrote (measured: per-event
 * appends ran 1.2× slower right after the batch row's 100 MB than one row later). So the
 * floor runs first, where nothing went before it, then the store's per-event rows, and the
 * batch row last. The last group shows how fast the disk took an fsync in this run.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { migrate } from "../events/migrations.ts";
import { Checkpointer } from "../events/checkpointer.ts";
import { syntheticSession } from "../tests/_fixtures/store_fixtures.ts";

const dir = Deno.makeTempDirSync({ prefix: "cairn_bench_" });
globalThis.addEventListener("unload", () => {
  for (const s of [singleStore, inlineStore, batchStore]) s.close();
  floorCheckpointer.close();
  diskFile.close();
  floorDb.close();
  Deno.removeSync(dir, { recursive: true });
});

const BATCH = 1000;
const events = syntheticSession(BATCH);
let stream = 0;
let k = 0;

// ---- append ----
// The floor under one transaction per event: the same layout, pragmas and background
// checkpointer (asked every ~1 MB, as the store does), bare node:sqlite statements,
// pre-serialised rows (no validation, no version check, no other Cairn code).
const floorDb = new DatabaseSync(`${dir}/floor.db`);
floorDb.exec(
  "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 16000",
);
migrate(floorDb);
const floorCheckpointer = new Checkpointer(`${dir}/floor.db`);
let floorBytes = 0;
const floorRows = events.map((e) => [e.type, JSON.stringify(e.data)] as const);
const fBegin = floorDb.prepare("BEGIN IMMEDIATE");
const fCommit = floorDb.prepare("COMMIT");
const fInsert = floorDb.prepare(
  "INSERT INTO events (position, stream_id, stream_version, type, schema_version, data, meta) VALUES (?, ?, ?, ?, 1, ?, ?)",
);
let floorPos = 0;

Deno.bench({
  name: "floor: bare node:sqlite BEGIN/INSERT/COMMIT per event (×1000), same checkpointer",
  group: "append",
  n: 30,
  fn: () => {
    const s = `floor-${stream++}`;
    for (let i = 0; i < BATCH; i++) {
      const [type, data] = floorRows[i]!;
      fBegin.run();
      fInsert.run(++floorPos, s, i + 1, type, data, '{"recordedAt":"2026-01-01T00:00:00.000Z"}');
      fCommit.run();
      floorBytes += data.length;
      if (floorBytes >= 1 << 20) {
        floorBytes = 0;
        floorCheckpointer.request();
      }
    }
  },
});

const singleStore = SqliteEventStore.open(`${dir}/single.db`);

Deno.bench({
  name: "append: 1 event per transaction (×1000)",
  group: "append",
  baseline: true,
  n: 30,
  fn: () => {
    const s = `session-single-${stream++}`;
    for (let i = 0; i < BATCH; i++) singleStore.appendSync(s, [events[k++ % BATCH]!]);
  },
});

// The same with checkpoints on the appending thread (no worker): what the worker buys.
const inlineStore = SqliteEventStore.open(`${dir}/inline.db`, { checkpointThread: false });

Deno.bench({
  name: "append: 1 event per transaction (×1000), checkpoints on the appending thread",
  group: "append",
  n: 30,
  fn: () => {
    const s = `session-inline-${stream++}`;
    for (let i = 0; i < BATCH; i++) inlineStore.appendSync(s, [events[k++ % BATCH]!]);
  },
});

const batchStore = SqliteEventStore.open(`${dir}/batch.db`);

Deno.bench({
  name: "append: batch of 1000 events, one transaction",
  group: "append",
  n: 100,
  fn: () => {
    batchStore.appendSync(`session-batch-${stream++}`, events);
  },
});

// ---- the disk ----
// One event per transaction writes ~6.7 KB of WAL (scripts/store_wal_frames.ts), and those
// bytes must reach the disk at each checkpoint: this row shows how fast the disk took them.
const diskFile = Deno.openSync(`${dir}/disk.bin`, { write: true, create: true });
const eightMb = new Uint8Array(8 << 20).fill(7);

Deno.bench({
  name: "disk: write 8 MB to a file and fdatasync it",
  group: "disk",
  n: 20,
  fn: () => {
    diskFile.seekSync(0, Deno.SeekMode.Start);
    diskFile.writeSync(eightMb);
    diskFile.syncDataSync();
  },
});
