/**
 * The event-store conformance suite: what every {@linkcode EventStore} must do, run against
 * SQLite (`sqlite_event_store_test.ts`) and PostgreSQL (`postgres_event_store_test.ts`).
 *
 * @module
 */
import {
  ConcurrencyError,
  type EventStore,
  IdempotencyError,
  NotFoundError,
} from "./event_store.ts";
import type { NewEvent, StoredEvent } from "./schemas.ts";
import { CURRENT_SCHEMA_VERSION } from "./schemas.ts";
import {
  assert,
  assertEquals,
  assertGreaterOrEqual,
  assertRejects,
  assertStringIncludes,
} from "../tests/_fixtures/assert.ts";

function step(index: number, text = `step ${index}`): NewEvent {
  return { type: "StepStarted", data: { index, text } };
}

async function collect(it: AsyncIterable<StoredEvent>): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

/** A fresh, empty store and how to let go of it. */
export interface StoreFixture {
  store: EventStore;
  dispose(): Promise<void>;
}

/**
 * Registers the suite's tests.
 *
 * @param label the store's name, prefixed to every test's name
 * @param fresh makes an empty store for one test
 * @param options `sanitize: false` for a store whose client keeps sockets between tests
 */
export function storeConformance(
  label: string,
  fresh: () => Promise<StoreFixture>,
  options: { sanitize?: boolean } = {},
): void {
  const sanitize = options.sanitize ?? true;
  const test = (name: string, fn: () => Promise<void>) =>
    Deno.test({
      name: `${label}: ${name}`,
      fn,
      sanitizeOps: sanitize,
      sanitizeResources: sanitize,
    });
  async function withStore(fn: (store: EventStore) => Promise<void>) {
    const { store, dispose } = await fresh();
    try {
      await fn(store);
    } finally {
      await dispose();
    }
  }

  test("append() assigns consecutive positions and stream versions across streams", async () => {
    await withStore(async (store) => {
      const a = await store.append("session-a", [step(0), step(1)]);
      const b = await store.append("session-b", [step(0)]);
      const c = await store.append("session-a", [step(2)]);
      assertEquals(a, { positions: [1, 2], streamVersion: 2, duplicate: false });
      assertEquals(b, { positions: [3], streamVersion: 1, duplicate: false });
      assertEquals(c, { positions: [4], streamVersion: 3, duplicate: false });
      const all = await collect(store.readAll());
      assertEquals(all.map((e) => [e.position, e.streamId, e.streamVersion]), [
        [1, "session-a", 1],
        [2, "session-a", 2],
        [3, "session-b", 1],
        [4, "session-a", 3],
      ]);
      assertEquals(all[0]!.schemaVersion, CURRENT_SCHEMA_VERSION.StepStarted);
      assertEquals(all[0]!.data, { index: 0, text: "step 0" });
      assert(typeof all[0]!.meta.recordedAt === "string");
      const a2 = await collect(store.readStream("session-a", { from: 2 }));
      assertEquals(a2.map((e) => e.position), [2, 4]);
      assertEquals(await store.headPosition(), 4);
    });
  });

  test("append() raises ConcurrencyError on a wrong expected version and appends nothing", async () => {
    await withStore(async (store) => {
      await store.append("session-a", [step(0)], { expectedVersion: "no_stream" });
      await assertRejects(
        () => store.append("session-a", [step(1)], { expectedVersion: "no_stream" }),
        ConcurrencyError,
        "at version 1",
      );
      await assertRejects(
        () => store.append("session-a", [step(1), step(2)], { expectedVersion: 0 }),
        ConcurrencyError,
      );
      const ok = await store.append("session-a", [step(1)], { expectedVersion: 1 });
      assertEquals(ok.positions, [2]);
      assertEquals(await store.headPosition(), 2);
    });
  });

  test("append() returns the original positions for a repeated idempotency key", async () => {
    await withStore(async (store) => {
      const first = await store.append("session-a", [step(0), step(1)], { idempotencyKey: "k1" });
      await store.append("session-b", [step(0)]);
      const again = await store.append("session-a", [step(0), step(1)], { idempotencyKey: "k1" });
      assertEquals(again, { positions: first.positions, streamVersion: 2, duplicate: true });
      assertEquals(await store.headPosition(), 3);
      const [e] = await collect(store.readAll({ limit: 1 }));
      assertEquals(e!.meta.idempotencyKey, "k1");
    });
  });

  test("an idempotency key is refused with another stream or other events, and appends nothing", async () => {
    await withStore(async (store) => {
      await store.append("session-a", [step(0), step(1)], { idempotencyKey: "k1" });
      const head = await store.headPosition();
      let err = await assertRejects(
        () => store.append("session-b", [step(0), step(1)], { idempotencyKey: "k1" }),
        IdempotencyError,
      );
      assertEquals(
        err.message,
        'Idempotency key "k1" was used for stream session-a, not session-b',
      );
      err = await assertRejects(
        () => store.append("session-a", [step(0), step(2)], { idempotencyKey: "k1" }),
        IdempotencyError,
      );
      assertEquals(
        err.message,
        'Idempotency key "k1" was used for other events on stream session-a',
      );
      // the same events with other meta (a retry stamps its own time) are still a repeat
      const again = await store.append("session-a", [
        { ...step(0), meta: { recordedAt: "2030-01-01T00:00:00.000Z" } },
        step(1),
      ], { idempotencyKey: "k1" });
      assertEquals(again, { positions: [1, 2], streamVersion: 2, duplicate: true });
      // one key on two streams in one appendMany: neither batch is stored
      await assertRejects(
        () =>
          store.appendMany([
            { streamId: "session-c", events: [step(0)], options: { idempotencyKey: "k2" } },
            { streamId: "session-d", events: [step(0)], options: { idempotencyKey: "k2" } },
          ]),
        IdempotencyError,
        "was used for stream session-c, not session-d",
      );
      assertEquals(await store.headPosition(), head);
      assertEquals((await store.streams()).map((s) => s.streamId), ["session-a"]);
    });
  });

  test("append() throws TypeError naming the event index and field, appending nothing", async () => {
    await withStore(async (store) => {
      const bad = [step(0), { type: "StepStarted", data: { index: -1, text: "x" } }] as NewEvent[];
      const err = await assertRejects(() => store.append("session-a", bad), TypeError, "Event 1");
      assertStringIncludes(err.message, "data.index");
      await assertRejects(
        () => store.append("session-a", [{ type: "Nope", data: {} } as unknown as NewEvent]),
        TypeError,
        'unknown event type "Nope"',
      );
      assertEquals(await store.headPosition(), 0);
      assertEquals(await store.streams(), []);
    });
  });

  test("appendMany() appends to several streams in one transaction, all or none", async () => {
    await withStore(async (store) => {
      await store.append("session-b", [step(0)]);
      const head = await store.headPosition();
      // the third batch conflicts: the first two must not be stored either
      await assertRejects(
        () =>
          store.appendMany([
            { streamId: "session-a", events: [step(0), step(1)] },
            { streamId: "session-c", events: [step(0)], options: { expectedVersion: "no_stream" } },
            { streamId: "session-b", events: [step(1)], options: { expectedVersion: "no_stream" } },
          ]),
        ConcurrencyError,
      );
      // a bad event in a later batch names its stream and stores nothing
      const bad = { type: "StepStarted", data: { index: -1, text: "x" } } as NewEvent;
      const err = await assertRejects(
        () =>
          store.appendMany([
            { streamId: "session-a", events: [step(0)] },
            { streamId: "session-d", events: [step(0), bad] },
          ]),
        TypeError,
      );
      assertStringIncludes(err.message, "Stream session-d: Event 1 (StepStarted): data.index");
      assertEquals(await store.headPosition(), head);
      assertEquals((await store.streams()).map((s) => s.streamId), ["session-b"]);

      // applied in order: positions run on across batches, one stream may appear twice
      const results = await store.appendMany([
        { streamId: "session-a", events: [step(0), step(1)], options: { expectedVersion: 0 } },
        { streamId: "session-b", events: [step(1)], options: { expectedVersion: 1 } },
        { streamId: "session-a", events: [step(2)], options: { expectedVersion: 2 } },
      ]);
      assertEquals(results, [
        { positions: [head + 1, head + 2], streamVersion: 2, duplicate: false },
        { positions: [head + 3], streamVersion: 2, duplicate: false },
        { positions: [head + 4], streamVersion: 3, duplicate: false },
      ]);
      const a = await collect(store.readStream("session-a"));
      assertEquals(a.map((e) => [e.position, e.streamVersion, e.data]), [
        [head + 1, 1, { index: 0, text: "step 0" }],
        [head + 2, 2, { index: 1, text: "step 1" }],
        [head + 4, 3, { index: 2, text: "step 2" }],
      ]);
    });
  });

  test("readAll() pages through more rows than one page, honouring from and limit", async () => {
    await withStore(async (store) => {
      const batch = Array.from({ length: 2500 }, (_, i) => step(i));
      await store.append("session-big", batch);
      const all = await collect(store.readAll());
      assertEquals(all.length, 2500);
      assert(all.every((e, i) => e.position === i + 1));
      const some = await collect(store.readAll({ from: 999, limit: 1003 }));
      assertEquals(some.length, 1003);
      assertEquals(some[0]!.position, 999);
      assertEquals(some.at(-1)!.position, 2001);
      const tail = await collect(store.readStream("session-big", { from: 2400 }));
      assertEquals(tail.length, 101);
    });
  });

  test("streams() filters by prefix; deleteStream() removes one stream only", async () => {
    await withStore(async (store) => {
      await store.append("session-a", [step(0), step(1)]);
      await store.append("playback-x", [step(0)]);
      await store.append("session-b", [step(0)]);
      const sessions = await store.streams("session-");
      assertEquals(sessions.map((s) => [s.streamId, s.version, s.firstPosition, s.lastPosition]), [
        ["session-a", 2, 1, 2],
        ["session-b", 1, 4, 4],
      ]);
      assertEquals(await store.deleteStream("session-a"), 2);
      assertEquals((await store.streams()).map((s) => s.streamId), ["playback-x", "session-b"]);
      assertEquals((await collect(store.readAll())).map((e) => e.position), [3, 4]);
      // positions never repeat after a delete
      assertEquals((await store.append("session-a", [step(0)])).positions, [5]);
      // …also when the newest stream is the one deleted
      assertEquals(await store.deleteStream("session-a"), 1);
      assertEquals(await store.headPosition(), 5);
      assertEquals((await store.append("session-c", [step(0)])).positions, [6]);
      assertEquals(await store.deleteStream("session-none"), 0);
    });
  });

  test("streams() takes a prefix literally (_ and % are characters, not patterns)", async () => {
    await withStore(async (store) => {
      for (const id of ["run_1", "runx1", "run%2", "run"]) await store.append(id, [step(0)]);
      assertEquals((await store.streams("run_")).map((s) => s.streamId), ["run_1"]);
      assertEquals((await store.streams("run%")).map((s) => s.streamId), ["run%2"]);
      assertEquals((await store.streams("run")).length, 4);
      assertEquals(await store.streams("nope"), []);
    });
  });

  test("putBlob() stores bytes once under their sha256 with media type and size", async () => {
    await withStore(async (store) => {
      const bytes = new TextEncoder().encode("<hierarchy/>");
      const a = await store.putBlob(bytes, "application/xml");
      const b = await store.putBlob(bytes, "application/xml");
      assertEquals(a, b);
      assertEquals(a.size, bytes.length);
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
      assertEquals(a.hash, Array.from(digest, (x) => x.toString(16).padStart(2, "0")).join(""));
      const got = await store.getBlob(a.hash);
      assertEquals(got.bytes, bytes);
      assertEquals(got.ref.mediaType, "application/xml");
      await assertRejects(() => store.getBlob("0".repeat(64)), NotFoundError);
      assertEquals(await store.hasBlob(a.hash), true);
      assertEquals(await store.hasBlob("0".repeat(64)), false);
    });
  });

  test("putDerived() keeps the first bytes of a blob hash and kind; getDerived() reads them by both", async () => {
    await withStore(async (store) => {
      if (!store.putDerived || !store.getDerived) throw new Error("no derived bytes");
      const { hash } = await store.putBlob(
        new TextEncoder().encode("<hierarchy/>"),
        "application/xml",
      );
      assertEquals(await store.getDerived(hash, "k/v1"), undefined);
      await store.putDerived(hash, "k/v1", new Uint8Array([1, 2, 3]));
      await store.putDerived(hash, "k/v1", new Uint8Array([9])); // the first is kept
      await store.putDerived(hash, "k/v2", new Uint8Array([4]));
      assertEquals(await store.getDerived(hash, "k/v1"), new Uint8Array([1, 2, 3]));
      assertEquals(await store.getDerived(hash, "k/v2"), new Uint8Array([4]));
      assertEquals(await store.getDerived("0".repeat(64), "k/v1"), undefined);
    });
  });

  test("subscribe() replays from a position and then follows live appends", async () => {
    await withStore(async (store) => {
      await store.append("session-a", [step(0), step(1)]);
      const ac = new AbortController();
      const seen: number[] = [];
      const done = (async () => {
        for await (const e of store.subscribe({ from: 2, signal: ac.signal })) {
          seen.push(e.position);
          if (seen.length === 3) ac.abort();
        }
      })();
      await new Promise((r) => setTimeout(r, 20));
      await store.append("session-b", [step(0), step(1)]);
      await done;
      assertEquals(seen, [2, 3, 4]);
    });
  });

  test("subscribe() waits quietly after the newest stream was deleted, then follows appends", async () => {
    await withStore(async (store) => {
      await store.append("session-a", [step(0)]);
      await store.append("session-b", [step(0), step(1)]);
      await store.deleteStream("session-b"); // head stays 3; positions 2 and 3 are gone
      const ac = new AbortController();
      let wakeups = 0;
      const seen: number[] = [];
      const done = (async () => {
        for await (const e of store.subscribe({ from: 2, signal: ac.signal })) {
          seen.push(e.position);
          ac.abort();
        }
      })();
      const ticker = setInterval(() => wakeups++, 10);
      // the event loop is not starved by a spinning subscriber: a 10 ms ticker gets its turns
      // (within 2 s: a busy machine delays timers, it does not stop them)
      const start = performance.now();
      while (wakeups < 3 && performance.now() - start < 2_000) {
        await new Promise((r) => setTimeout(r, 20));
      }
      clearInterval(ticker);
      assertGreaterOrEqual(wakeups, 3);
      await store.append("session-c", [step(0)]);
      await done;
      assertEquals(seen, [4]);
    });
  });

  test("read events are plain objects that compare and serialise like literals", async () => {
    await withStore(async (store) => {
      await store.append("session-a", [step(0)]);
      const [e] = await collect(store.readAll());
      assertEquals(Object.getPrototypeOf(e), Object.prototype);
      assertEquals(e, {
        position: 1,
        streamId: "session-a",
        streamVersion: 1,
        type: "StepStarted",
        schemaVersion: CURRENT_SCHEMA_VERSION.StepStarted,
        data: { index: 0, text: "step 0" },
        meta: { recordedAt: e!.meta.recordedAt },
      });
      assertEquals(JSON.parse(JSON.stringify(e)), e);
      assertEquals({ ...e }, e);
    });
  });

  test("streams interleaved in the log read back in version order, from any version, across a deleted stream", async () => {
    await withStore(async (store) => {
      // a, a | b | a | b, b | c | a
      await store.append("session-a", [step(0), step(1)]);
      await store.append("session-b", [step(0)]);
      await store.append("session-a", [step(2)]);
      await store.append("session-b", [step(1), step(2)]);
      await store.append("session-c", [step(0)]);
      await store.append("session-a", [step(3)]);
      const versions = async (id: string, from = 1, limit = Infinity) =>
        (await collect(store.readStream(id, { from, limit }))).map((
          e,
        ) => [e.streamVersion, e.position]);
      assertEquals(await versions("session-a"), [[1, 1], [2, 2], [3, 4], [4, 8]]);
      assertEquals(await versions("session-a", 2, 2), [[2, 2], [3, 4]]);
      assertEquals(await versions("session-a", 4), [[4, 8]]);
      assertEquals(await versions("session-b", 2), [[2, 5], [3, 6]]);
      assertEquals(await versions("session-a", 9), []);

      assertEquals(await store.deleteStream("session-b"), 3);
      assertEquals(await versions("session-b"), []);
      assertEquals(await versions("session-a"), [[1, 1], [2, 2], [3, 4], [4, 8]]);
      assertEquals(
        (await store.streams("session-")).map((s) => [s.streamId, s.version, s.lastPosition]),
        [["session-a", 4, 8], ["session-c", 1, 7]],
      );
      // a stream deleted and written again starts over at version 1
      const b = await store.append("session-b", [step(9)], { expectedVersion: "no_stream" });
      assertEquals(b, { positions: [9], streamVersion: 1, duplicate: false });
      const a = await store.append("session-a", [step(4)], { expectedVersion: 4 });
      assertEquals(a.positions, [10]);
      assertEquals(await versions("session-a", 4), [[4, 8], [5, 10]]);
    });
  });
}
