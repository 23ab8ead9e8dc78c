import { assertEquals, assertRejects } from "../_fixtures/assert.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { ConcurrencyError } from "../../events/event_store.ts";
import type { StoredEvent } from "../../events/schemas.ts";
import { syntheticSession } from "../_fixtures/store_fixtures.ts";

Deno.test("append() of a batch larger than one multi-row INSERT keeps positions, versions and data in order", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_store_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    await store.append("other", syntheticSession(3, "other"));
    await store.append("s", syntheticSession(1, "s"));
    const batch = syntheticSession(2 * 64 + 5, "s"); // two whole chunks and a remainder
    const r = await store.append("s", batch, { expectedVersion: 1 });
    assertEquals(r.streamVersion, 1 + batch.length);
    assertEquals(r.positions, batch.map((_, i) => 5 + i));
    const read: StoredEvent[] = [];
    for await (const e of store.readStream("s", { from: 2 })) read.push(e);
    assertEquals(read.map((e) => e.position), r.positions);
    assertEquals(read.map((e) => e.streamVersion), batch.map((_, i) => 2 + i));
    assertEquals(read.map((e) => [e.type, e.data]), batch.map((e) => [e.type, e.data]));
    // a conflicting large batch appends nothing
    await assertRejects(() => store.append("s", batch, { expectedVersion: 1 }), ConcurrencyError);
    assertEquals(await store.headPosition(), 4 + batch.length);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
