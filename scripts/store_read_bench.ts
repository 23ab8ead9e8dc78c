/**
 * Event-store read benches (`deno bench -A scripts/store_read_bench.ts`): a full read of 50,000
 * ~1 KB events through the async iterator beside its floor (bare `node:sqlite` pages and one
 * `JSON.parse` per row), `stateAt` on a 10,000-event session (from the nearest in-memory
 * checkpoint, and the full fold it saves), and why read events are built with `new`.
 *
 * The process first keeps 10,000 events it read, as a projection does. "object literals" builds
 * each event with an object literal, as the store did before; "new on Object.prototype" is
 * `readAllSync()`. Both read the same rows from the same file, and each builder first made
 * 10,000 of the kept events, so V8 has the same allocation feedback for both.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { syntheticSession } from "../tests/_fixtures/store_fixtures.ts";
import { evolveSession, sessionStateProjection, stateAt } from "../engine/timeline/time_travel.ts";

const dir = Deno.makeTempDirSync({ prefix: "cairn_read_bench_" });
const TT_N = 10_000;
{
  const writer = SqliteEventStore.open(`${dir}/read.db`);
  const events = syntheticSession(1000);
  for (let i = 0; i < 50; i++) writer.appendSync(`session-r${i}`, events);
  writer.appendSync("session-kept", syntheticSession(10_000, "kept"));
  writer.close();
  const tt = SqliteEventStore.open(`${dir}/tt.db`);
  tt.appendSync("session-noise", syntheticSession(2000, "noise"));
  tt.appendSync("session-tt", syntheticSession(TT_N, "tt"));
  tt.close();
  // copy both WALs back now, so no checkpoint runs beside the benches
  for (const name of ["read", "tt"]) {
    const db = new DatabaseSync(`${dir}/${name}.db`);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
  }
}
const store = SqliteEventStore.open(`${dir}/read.db`);
const ttStore = SqliteEventStore.open(`${dir}/tt.db`);
const positions: number[] = [];
for await (const e of ttStore.readStream("session-tt")) positions.push(e.position);
await stateAt(ttStore, "session-tt"); // builds the checkpoints once
const db = new DatabaseSync(`${dir}/read.db`);
globalThis.addEventListener("unload", () => {
  store.close();
  ttStore.close();
  db.close();
  Deno.removeSync(dir, { recursive: true });
});

type Row = [number, string, number, string, number, string, string];
const page = db.prepare(
  "SELECT position, stream_id, stream_version, type, schema_version, data, meta FROM events WHERE position >= ? ORDER BY position LIMIT 1000",
);
const arrays = (st: unknown) => (st as { setReturnArrays(v: boolean): void }).setReturnArrays(true);
arrays(page);
const inStream = db.prepare(
  "SELECT position, stream_id, stream_version, type, schema_version, data, meta FROM events WHERE stream_id = ? ORDER BY stream_version",
);
arrays(inStream);

/** The store's row-to-event step with an object literal (every row is at the current version). */
function literal(r: Row) {
  const [position, streamId, streamVersion, type, schemaVersion, data, rawMeta] = r;
  const meta = rawMeta.startsWith('{"recordedAt":"') && rawMeta.length === 43
    ? { recordedAt: rawMeta.slice(15, -2) }
    : JSON.parse(rawMeta);
  return { position, streamId, streamVersion, type, schemaVersion, data: JSON.parse(data), meta };
}

function* readLiteral(from = 0) {
  for (let next = from;;) {
    const rows = page.all(next) as unknown as Row[];
    for (const r of rows) yield literal(r);
    if (rows.length < 1000) return;
    next = rows[rows.length - 1]![0] + 1;
  }
}

// what a projection keeps: 10,000 events from each builder
const kept: unknown[] = [];
for (const r of inStream.all("session-kept") as unknown as Row[]) kept.push(literal(r));
for (const e of store.readStreamSync("session-kept")) kept.push(e);
const keptFrom = 50_001;

function count(it: Iterable<{ position: number }>): void {
  let n = 0;
  for (const e of it) if (e.position < keptFrom) n++;
  if (n !== 50_000) throw new Error(`read ${n}`);
}

Deno.bench({
  name: "readAll: 50,000 events (async iterator, pages of 1000)",
  group: "read",
  n: 10,
  fn: async () => {
    let n = 0;
    for await (const _ of store.readAll({ limit: 50_000 })) n++;
    if (n !== 50_000) throw new Error(`read ${n}`);
  },
});

// The floor under a full read: bare node:sqlite pages of the same rows and one JSON.parse of
// each row's data, in a sync loop, no event objects (what any reader of this layout pays).
Deno.bench({
  name: "floor: bare node:sqlite pages + JSON.parse of each row's data (50,000 rows)",
  group: "read",
  n: 10,
  fn: () => {
    let n = 0;
    for (let next = 0;;) {
      const rows = page.all(next) as unknown as Row[];
      for (const r of rows) if (JSON.parse(r[5]) !== null && r[0] < keptFrom) n++;
      if (rows.length < 1000 || n >= 50_000) break;
      next = rows[rows.length - 1]![0] + 1;
    }
    if (n !== 50_000) throw new Error(`read ${n}`);
  },
});

let q = 0;
const pick = () => positions[TT_N - 1 - ((q++ * 7919) % 1000)]!; // the last 1000 positions

Deno.bench({
  name: "stateAt: 10,000-event session, from the nearest checkpoint",
  group: "stateAt",
  fn: async () => {
    await stateAt(ttStore, "session-tt", pick());
  },
});

Deno.bench({
  name: "stateAt: 10,000-event session, full fold from the log (no checkpoints)",
  group: "stateAt",
  baseline: true,
  n: 10,
  fn: async () => {
    const at = pick();
    let s = sessionStateProjection.initialState;
    for await (const e of ttStore.readStream("session-tt")) {
      if (e.position > at) break;
      s = evolveSession(s, e);
    }
  },
});

Deno.bench({
  name: "readAll 50,000 events, object literals (before)",
  group: "read after keeping 10,000 events",
  baseline: true,
  n: 20,
  fn: () => count(readLiteral()),
});

Deno.bench({
  name: "readAll 50,000 events, new on Object.prototype (the store)",
  group: "read after keeping 10,000 events",
  n: 20,
  fn: () => count(store.readAllSync({ limit: 50_000 })),
});
