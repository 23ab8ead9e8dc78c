/**
 * The event-store conformance suite on a real PostgreSQL server (a throwaway cluster started
 * once for this file, a fresh database per test), and what only PostgreSQL has to show:
 * concurrent writers on several connections, commit-order-safe reading, its layout version.
 */
import { type PgCluster, pgTestsSkipped, startCluster } from "../../events/postgres_cluster.ts";
import { PG_LATEST_VERSION, PostgresEventStore } from "../../events/postgres_event_store.ts";
import { storeConformance } from "../../events/store_conformance.ts";
import { StoreFileError } from "../../events/event_store.ts";
import { RunQueue } from "../../events/postgres_queue.ts";
import type { NewEvent, StoredEvent } from "../../events/schemas.ts";
import { assert, assertEquals, assertRejects } from "../_fixtures/assert.ts";

const ignore = pgTestsSkipped();
let cluster: PgCluster | undefined;
let dbs = 0;

/** A fresh database on the file's cluster (started on first use, stopped by the last test). */
async function freshUrl(): Promise<string> {
  cluster ??= await startCluster();
  return await cluster.createDatabase(`t${++dbs}`);
}

const step = (index: number): NewEvent => ({ type: "StepStarted", data: { index, text: "s" } });

async function collect(it: AsyncIterable<StoredEvent>): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

if (!ignore) {
  storeConformance("PostgresEventStore", async () => {
    const store = await PostgresEventStore.connect(await freshUrl());
    return { store, dispose: () => store.end() };
  }, { sanitize: false });
}

Deno.test({
  name: "PostgresEventStore: concurrent writers on separate pools get gap-free positions",
  ignore,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const url = await freshUrl();
    const stores = await Promise.all(
      [0, 1, 2, 3].map(() => PostgresEventStore.connect(url, { max: 4 })),
    );
    try {
      // a reader following the log while the writers append never sees a position twice or out
      // of order, and sees every one (no event committed later below what it has read)
      const ac = new AbortController();
      const seen: number[] = [];
      const reader = (async () => {
        for await (const e of stores[0]!.subscribe({ signal: ac.signal })) {
          seen.push(e.position);
          if (seen.length === 4 * 50 * 2) ac.abort();
        }
      })();
      await Promise.all(stores.map(async (s, w) => {
        const jobs = [];
        for (let i = 0; i < 50; i++) {
          jobs.push(s.append(`session-w${w}-${i % 5}`, [step(i), step(i + 1)]));
        }
        await Promise.all(jobs);
      }));
      const all = await collect(stores[1]!.readAll());
      assertEquals(all.map((e) => e.position), Array.from({ length: 400 }, (_, i) => i + 1));
      const versions = new Map<string, number[]>();
      for (const e of all) {
        versions.set(e.streamId, [...(versions.get(e.streamId) ?? []), e.streamVersion]);
      }
      for (const [, v] of versions) assertEquals(v, Array.from({ length: 20 }, (_, i) => i + 1));
      await reader;
      assertEquals(seen, all.map((e) => e.position));
    } finally {
      await Promise.all(stores.map((s) => s.end()));
    }
  },
});

Deno.test({
  name: "PostgresEventStore: expected versions hold across connections (one winner per version)",
  ignore,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const url = await freshUrl();
    const a = await PostgresEventStore.connect(url);
    const b = await PostgresEventStore.connect(url);
    try {
      await a.append("session-x", [step(0)]);
      const results = await Promise.allSettled(
        [a, b, a, b].map((s, i) => s.append("session-x", [step(i)], { expectedVersion: 1 })),
      );
      assertEquals(results.filter((r) => r.status === "fulfilled").length, 1);
      assertEquals(await a.headPosition(), 2);
    } finally {
      await a.end();
      await b.end();
    }
  },
});

Deno.test({
  name: "PostgresEventStore: layout version recorded; a newer one and a dead server are refused",
  ignore,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const url = await freshUrl();
    const store = await PostgresEventStore.connect(url);
    try {
      const rows = await store.sql`SELECT max(version) AS v FROM schema_migrations`;
      assertEquals(Number(rows[0]!.v), PG_LATEST_VERSION);
      await store.sql`INSERT INTO schema_migrations VALUES (${PG_LATEST_VERSION + 1}, 'x', 'now')`;
    } finally {
      await store.end();
    }
    const err = await assertRejects(() => PostgresEventStore.connect(url), StoreFileError);
    assert(err.message.includes("written by a newer Cairn"), err.message);
    const dead = await assertRejects(
      () => PostgresEventStore.connect("postgres://u:secret@127.0.0.1:1/db"),
      StoreFileError,
    );
    assert(dead.message.startsWith("postgres://u:***@127.0.0.1:1/db: cannot use"), dead.message);
  },
});

Deno.test({
  name:
    "RunQueue: concurrent claims never share a run; memory values leave a row when its run ends",
  ignore,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const url = await freshUrl();
    const a = await PostgresEventStore.connect(url);
    const b = await PostgresEventStore.connect(url);
    try {
      const [qa, qb] = [new RunQueue(a), new RunQueue(b)];
      for (let i = 0; i < 10; i++) {
        await qa.enqueue("playback", `pb-${i}`, {
          plan: {},
          body: { memory: { pw: `s3cret${i}` } },
        });
      }
      // twelve claims at once on two pools: ten distinct runs, two empty hands
      const claims = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? qa : qb).claim(`w${i}`, 60_000)),
      );
      const got = claims.filter((c) => c !== undefined);
      const ids = got.map((c) => c.id);
      assertEquals(ids.length, 10);
      assertEquals(new Set(ids).size, 10);
      assertEquals(got[0]!.payload, {
        plan: {},
        body: { memory: { pw: `s3cret${got[0]!.id.slice(3)}` } },
      });
      // one finished, one left to expire (its worker gone before it wrote anything)
      const [done, gone] = [got[0]!, got[1]!];
      assertEquals(await qa.finish(done.id, done.worker!), true);
      assertEquals(await qa.heartbeat(done.id, done.worker!, 60_000), false);
      await a
        .sql`UPDATE run_queue SET lease_until = now() - interval '1 second' WHERE id = ${gone.id}`;
      const reaped = await qb.reap(() => Promise.resolve(false), () => Promise.resolve());
      assertEquals(reaped, { requeued: [gone.id], interrupted: [] });
      const after = await qa.get(done.id);
      assertEquals([after!.status, after!.payload], ["done", { plan: {}, body: {} }]);
      // queued again, it keeps what its next worker needs
      const again = await qa.get(gone.id);
      assertEquals(again!.status, "queued");
      assert(JSON.stringify(again!.payload).includes("s3cret"));
    } finally {
      await a.end();
      await b.end();
    }
  },
});

Deno.test({
  name: "PostgresEventStore: stop the file's cluster",
  ignore,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await cluster?.stop();
    cluster = undefined;
  },
});
