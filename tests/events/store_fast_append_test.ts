/**
 * A one-event append that goes on with the stream at the head is one autocommit INSERT built on
 * what its connection knows of the log (`#appendFast` in `events/sqlite_event_store.ts`). These
 * tests change the log through a second connection to the same file between two such appends and
 * check that the first connection never writes on stale knowledge.
 */
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { ConcurrencyError } from "../../events/event_store.ts";
import type { NewEvent, StoredEvent } from "../../events/schemas.ts";
import { assertEquals, assertRejects } from "../_fixtures/assert.ts";

const step = (index: number): NewEvent => ({ type: "StepStarted", data: { index, text: "t" } });

async function withTwo(fn: (a: SqliteEventStore, b: SqliteEventStore) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "cairn_fast_" });
  const a = SqliteEventStore.open(`${dir}/s.db`);
  const b = SqliteEventStore.open(`${dir}/s.db`);
  try {
    await fn(a, b);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
}

async function stream(store: SqliteEventStore, id: string): Promise<[number, number][]> {
  const out: [number, number][] = [];
  for await (const e of store.readStream(id)) out.push([e.position, e.streamVersion]);
  return out;
}

async function all(store: SqliteEventStore): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of store.readAll()) out.push(e);
  return out;
}

Deno.test("a one-event append sees another connection's append to its stream since", async () => {
  await withTwo(async (a, b) => {
    for (let i = 0; i < 3; i++) a.appendSync("session-s", [step(i)]);
    assertEquals(b.appendSync("session-s", [step(3)]).positions, [4]);
    // a still knows version 3; the version it is told is checked against the log, not that
    const r = a.appendSync("session-s", [step(4)], { expectedVersion: 4 });
    assertEquals([r.positions, r.streamVersion], [[5], 5]);
    // and a stale expectation is refused, appending nothing
    await assertRejects(
      () => a.append("session-s", [step(5)], { expectedVersion: 4 }),
      ConcurrencyError,
    );
    assertEquals(await a.headPosition(), 5);
    assertEquals(a.appendSync("session-s", [step(5)]).positions, [6]);
    // no expectation: the position a knows is taken, so it re-reads and goes after b's
    assertEquals(b.appendSync("session-s", [step(6)]).positions, [7]);
    const s = a.appendSync("session-s", [step(7)]);
    assertEquals([s.positions, s.streamVersion], [[8], 8]);
    assertEquals(await stream(a, "session-s"), [1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, n]));
  });
});

Deno.test("a one-event append after another connection deleted its stream starts it anew", async () => {
  await withTwo(async (a, b) => {
    a.appendSync("session-d", [step(0)]);
    a.appendSync("session-d", [step(1)]);
    await b.deleteStream("session-d");
    // a knows session-d at version 2 at the head; written on that, it would be version 3 of a
    // deleted run, which no read would find
    const r = a.appendSync("session-d", [step(2)]);
    assertEquals([r.positions, r.streamVersion], [[3], 1]);
    assertEquals(await stream(a, "session-d"), [[3, 1]]);
    assertEquals(await stream(b, "session-d"), [[3, 1]]);
  });
});

Deno.test("a one-event append never reuses a position another connection appended and deleted", async () => {
  await withTwo(async (a, b) => {
    a.appendSync("session-k", [step(0)]);
    a.appendSync("session-k", [step(1)]);
    // b takes position 3 and deletes it: the position a would try next is free again
    assertEquals(b.appendSync("session-gone", [step(0)]).positions, [3]);
    await b.deleteStream("session-gone");
    const r = a.appendSync("session-k", [step(2)]);
    assertEquals([r.positions, r.streamVersion], [[4], 3]);
    assertEquals((await all(b)).map((e) => e.position), [1, 2, 4]);
    assertEquals(await stream(b, "session-k"), [[1, 1], [2, 2], [4, 3]]);
  });
});
