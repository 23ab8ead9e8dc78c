/**
 * SQLite beside PostgreSQL in one run (`deno run -A scripts/store_pg_bench.ts`): per-event and
 * batched appends, a full read and `stateAt`, on each store behind the same `EventStore`
 * interface, with the event mix of a capture (~1 KB of JSON per event,
 * `tests/_fixtures/store_fixtures.ts`); then 1, 2 and 4 concurrent writer *processes*, each appending
 * one event at a time to its own stream, on one SQLite file and on one PostgreSQL database.
 * PostgreSQL is a throwaway cluster on 127.0.0.1 with durable commits (fsync on,
 * `synchronous_commit` on), as SQLite's WAL with `synchronous = NORMAL` is not quite (it may
 * lose the last commits on power loss, never corrupt).
 *
 * A writer process stamps its start after it opened its store and its end after its last
 * append; throughput = all events ÷ (last end − first start).
 *
 * @module
 */
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { PostgresEventStore } from "../events/postgres_event_store.ts";
import { startCluster } from "../events/postgres_cluster.ts";
import type { EventStore } from "../events/event_store.ts";
import { syntheticSession } from "../tests/_fixtures/store_fixtures.ts";
import { stateAt } from "../engine/timeline/time_travel.ts";

const PER_EVENT = 2000;
const BATCHES = 20;
const BATCH = 1000;
const TT_N = 10_000;
const WRITER_EVENTS = 1500;

async function open(target: string): Promise<EventStore & { end?: () => Promise<void> }> {
  return target.startsWith("postgres://")
    ? await PostgresEventStore.connect(target, { max: 4 })
    : SqliteEventStore.open(target);
}

async function close(store: EventStore & { end?: () => Promise<void> }) {
  if (store.end) await store.end();
  else store.close();
}

// a writer process: `--writer TARGET STREAM N`
if (Deno.args[0] === "--writer") {
  const [, target, stream, n] = Deno.args as [string, string, string, string];
  const store = await open(target);
  const events = syntheticSession(Number(n), stream);
  const start = Date.now();
  for (const e of events) await store.append(stream, [e]);
  const end = Date.now();
  await close(store);
  console.log(JSON.stringify({ start, end, n: events.length }));
  Deno.exit(0);
}

const rate = (n: number, ms: number) => Math.round(n / (ms / 1000));

async function single(label: string, target: string) {
  const store = await open(target);
  const out: Record<string, string> = {};
  // per-event appends: one transaction each
  const one = syntheticSession(PER_EVENT, "one");
  let t = performance.now();
  for (const e of one) await store.append("session-one", [e]);
  out["per-event append"] = `${rate(PER_EVENT, performance.now() - t)} ev/s`;
  // batched appends of 1000 events
  const batch = syntheticSession(BATCH, "batch");
  t = performance.now();
  for (let i = 0; i < BATCHES; i++) await store.append(`session-b${i}`, batch);
  out["batched append (1000/batch)"] = `${rate(BATCHES * BATCH, performance.now() - t)} ev/s`;
  await store.append("session-tt", syntheticSession(TT_N, "tt"));
  // full read of the whole log
  t = performance.now();
  let n = 0;
  for await (const _ of store.readAll()) n++;
  const ms = performance.now() - t;
  out["full read"] = `${n} events in ${ms.toFixed(0)} ms (${rate(n, ms)} ev/s)`;
  // stateAt on a 10,000-event session: the first call folds, the second starts at a checkpoint
  t = performance.now();
  await stateAt(store, "session-tt");
  out["stateAt (10k-event session, first)"] = `${(performance.now() - t).toFixed(1)} ms`;
  const head = await store.headPosition();
  t = performance.now();
  await stateAt(store, "session-tt", head - 5);
  out["stateAt (again, 5 events back)"] = `${(performance.now() - t).toFixed(1)} ms`;
  await close(store);
  return [label, out] as const;
}

async function writers(target: string, count: number): Promise<number> {
  const procs = Array.from({ length: count }, (_, i) =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        new URL(import.meta.url).pathname,
        "--writer",
        target,
        `session-w${count}-${i}`,
        String(WRITER_EVENTS),
      ],
      stdout: "piped",
      stderr: "inherit",
    }).output());
  const results = (await Promise.all(procs)).map((o) =>
    JSON.parse(new TextDecoder().decode(o.stdout)) as { start: number; end: number; n: number }
  );
  const start = Math.min(...results.map((r) => r.start));
  const end = Math.max(...results.map((r) => r.end));
  return rate(results.reduce((a, r) => a + r.n, 0), end - start);
}

const dir = await Deno.makeTempDir({ prefix: "cairn_pg_bench_" });
// CAIRN_PG_BENCH_NOSYNC=1: fsync and synchronous_commit off (what the commit flush costs)
const cluster = await startCluster({ durable: Deno.env.get("CAIRN_PG_BENCH_NOSYNC") !== "1" });
try {
  const rows = [
    await single("SQLite", `${dir}/single.db`),
    await single("PostgreSQL", await cluster.createDatabase("single")),
  ];
  const conc: Record<string, Record<number, number>> = { SQLite: {}, PostgreSQL: {} };
  for (const count of [1, 2, 4]) {
    conc.SQLite![count] = await writers(`${dir}/writers${count}.db`, count);
    conc.PostgreSQL![count] = await writers(await cluster.createDatabase(`w${count}`), count);
  }
  const keys = Object.keys(rows[0]![1]);
  console.log("| | SQLite | PostgreSQL |\n|---|---|---|");
  for (const k of keys) console.log(`| ${k} | ${rows[0]![1][k]} | ${rows[1]![1][k]} |`);
  for (const c of [1, 2, 4]) {
    console.log(
      `| ${c} concurrent writer${c > 1 ? "s" : ""} (processes, per-event) | ${
        conc.SQLite![c]
      } ev/s | ${conc.PostgreSQL![c]} ev/s |`,
    );
  }
} finally {
  await cluster.stop();
  await Deno.remove(dir, { recursive: true });
}
