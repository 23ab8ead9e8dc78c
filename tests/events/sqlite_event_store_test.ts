import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { storeConformance } from "../../events/store_conformance.ts";
import { assert } from "../_fixtures/assert.ts";

Deno.test("SqliteEventStore.open() creates parent directories and a WAL file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_store_" });
  const store = SqliteEventStore.open(`${dir}/nested/dir/cairn.db`);
  try {
    await store.append("session-a", [{ type: "StepStarted", data: { index: 0, text: "s" } }]);
    const st = await Deno.stat(`${dir}/nested/dir/cairn.db-wal`);
    assert(st.isFile);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

// the event-store conformance suite, on a SQLite file per test
storeConformance("SqliteEventStore", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_store_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  return {
    store,
    async dispose() {
      store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
});
