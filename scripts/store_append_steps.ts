/**
 * Where a per-event append's time goes (`deno run -A scripts/store_append_steps.ts`): one event
 * per transaction, 1,000 a round, over 24 rounds (the first 4 not counted), with every variant
 * taking its turn in each round on a file of its own, so all of them see the same machine. The
 * ladder starts at bare `node:sqlite` (pre-serialised rows, the store's pragmas and background
 * checkpointer) and adds the store's steps one at a time, ending at `SqliteEventStore` itself. The
 * check comes in two rows: zod's parse (what the store ran before) and the exact check compiled
 * from the same schemas (`events/exact_check.ts`, what it runs now). Those rows commit as the store
 * did before, `BEGIN IMMEDIATE` and `PRAGMA data_version` around the insert; the row after them
 * commits as the store now does when the event goes on with the stream at the head, one
 * autocommit `INSERT` guarded by the deletes counter. A last row is the bare loop with the 32 MB
 * page cache the store had before.
 *
 * @module
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { migrate } from "../events/migrations.ts";
import { Checkpointer } from "../events/checkpointer.ts";
import { EVENT_SCHEMAS, type EventType } from "../events/schemas.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { compileExactCheck } from "../events/exact_check.ts";
import { syntheticSession } from "../tests/_fixtures/store_fixtures.ts";

const ROUNDS = 24;
const WARM = 4;
const N = 1000;
const events = syntheticSession(N);
const rows = events.map((e) => [e.type, JSON.stringify(e.data)] as const);
const EXACT = new Map(
  Object.entries(EVENT_SCHEMAS).map(([t, schema]) => [t, compileExactCheck(schema)!]),
);
const META = '{"recordedAt":"2026-01-01T00:00:00.000Z"}';
const dir = Deno.makeTempDirSync({ prefix: "cairn_steps_" });

interface Bare {
  db: DatabaseSync;
  checkpointer: Checkpointer;
  begin: StatementSync;
  commit: StatementSync;
  insert: StatementSync;
  dataVersion: StatementSync;
  guarded: StatementSync;
  position: number;
  bytes: number;
}

function bare(name: string, extra = ""): Bare {
  const path = `${dir}/${name}.db`;
  const db = new DatabaseSync(path);
  db.exec(
    `PRAGMA busy_timeout = 10000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
     PRAGMA mmap_size = 268435456; PRAGMA wal_autocheckpoint = 16000;
     PRAGMA journal_size_limit = 67108864; ${extra}`,
  );
  migrate(db);
  return {
    db,
    checkpointer: new Checkpointer(path),
    begin: db.prepare("BEGIN IMMEDIATE"),
    commit: db.prepare("COMMIT"),
    insert: db.prepare(
      "INSERT INTO events (position, stream_id, stream_version, type, schema_version, data, meta) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ),
    dataVersion: db.prepare("PRAGMA data_version"),
    guarded: db.prepare(
      "INSERT INTO events (position, stream_id, stream_version, type, schema_version, data, meta) SELECT ?, ?, ?, ?, ?, ?, ? WHERE (SELECT deletes FROM log_head WHERE id = 1) = ?",
    ),
    position: 0,
    bytes: 0,
  };
}

/** How a bare append checks and serialises: not at all (pre-serialised rows), with zod, or exact. */
type Check = "none" | "zod" | "exact";

/**
 * How a bare append commits: `BEGIN IMMEDIATE`/`INSERT`/`COMMIT`, the same with
 * `PRAGMA data_version` read inside (what the store did for every append before), or one
 * autocommit `INSERT … SELECT … WHERE` guarded by `log_head.deletes` (what it does now when the
 * event goes on with the stream at the head).
 */
type Commit = "transaction" | "with data_version" | "guarded autocommit";

/** One bare append: committed as `commit` says, after a check + stringify. */
function bareAppend(b: Bare, i: number, commit: Commit, check: Check): void {
  let type: string;
  let data: string;
  if (check === "exact") {
    const e = events[i]!;
    if (!EXACT.get(e.type)!(e.data)) throw new Error(`event ${i} missed the exact check`);
    type = e.type;
    data = JSON.stringify(e.data);
  } else if (check === "zod") {
    const e = events[i]!;
    const schema = EVENT_SCHEMAS[e.type as EventType];
    const parsed = schema.safeParse(e.data);
    if (!parsed.success) throw new Error(`event ${i} does not fit its schema`);
    type = e.type;
    data = JSON.stringify(parsed.data);
  } else {
    [type, data] = rows[i]!;
  }
  b.position++;
  if (commit === "guarded autocommit") {
    const changes = b.guarded.run(b.position, "s", b.position, type, 1, data, META, 0).changes;
    if (changes !== 1) throw new Error(`append ${b.position} was not written`);
  } else {
    b.begin.run();
    if (commit === "with data_version") b.dataVersion.get();
    b.insert.run(b.position, "s", b.position, type, 1, data, META);
    b.commit.run();
  }
  b.bytes += data.length;
  if (b.bytes >= 1 << 20) {
    b.bytes = 0;
    b.checkpointer.request();
  }
}

const store = SqliteEventStore.open(`${dir}/store.db`);
const variants: { name: string; run: (i: number) => void; close: () => void; ms: number }[] = [];
const addBare = (name: string, commit: Commit, check: Check, extra = "") => {
  const b = bare(name.replace(/\W+/g, "_"), extra);
  variants.push({
    name,
    run: (i) => bareAppend(b, i, commit, check),
    close: () => {
      b.checkpointer.close();
      b.db.close();
    },
    ms: 0,
  });
};
addBare("bare node:sqlite (the floor)", "transaction", "none");
addBare("+ PRAGMA data_version", "with data_version", "none");
addBare("+ zod parse and JSON.stringify", "with data_version", "zod");
addBare("+ exact check and JSON.stringify", "with data_version", "exact");
addBare("exact check, guarded autocommit", "guarded autocommit", "exact");
variants.push({
  name: "SqliteEventStore.appendSync",
  run: (i) => store.appendSync("s", [events[i]!]),
  close: () => store.close(),
  ms: 0,
});
addBare("bare, with a 32 MB page cache", "transaction", "none", "PRAGMA cache_size = -32768;");

try {
  for (let round = 0; round < ROUNDS; round++) {
    // each round starts with another variant, so none always follows the same one
    for (let j = 0; j < variants.length; j++) {
      const v = variants[(round + j) % variants.length]!;
      const t = performance.now();
      for (let i = 0; i < N; i++) v.run(i);
      if (round >= WARM) v.ms += performance.now() - t;
    }
  }
  const counted = ROUNDS - WARM;
  const floor = variants[0]!.ms;
  console.log(`one event per transaction, µs per event (mean of ${counted} rounds of ${N}):`);
  for (const v of variants) {
    const us = (v.ms / counted / N) * 1000;
    console.log(
      `  ${v.name.padEnd(32)} ${us.toFixed(1).padStart(6)}  ${(v.ms / floor).toFixed(2)}×`,
    );
  }
} finally {
  for (const v of variants) v.close();
  Deno.removeSync(dir, { recursive: true });
}
