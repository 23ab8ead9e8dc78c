import { DatabaseSync } from "node:sqlite";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { assert, assertEquals, assertGreaterOrEqual } from "../_fixtures/assert.ts";

const CHILD = new URL("../_fixtures/store_child.ts", import.meta.url).pathname;
const KILLS = 20;
const BATCH = 4000;

Deno.test("SqliteEventStore keeps all or none of a batch when its process is SIGKILLed mid-append", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_crash_" });
  const db = `${dir}/cairn.db`;
  let midBatch = 0;
  let lastCount = 0;
  try {
    for (let k = 0; k < KILLS; k++) {
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-q", "-A", "--no-check", CHILD, "crash", db, String(BATCH)],
        stdout: "piped",
        stderr: "null",
      }).spawn();
      const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let out = "";
      while (!out.includes("begin")) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`child ended early: ${out}`);
        out += value;
      }
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 120));
      child.kill("SIGKILL");
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        out += value;
      }
      await child.status;
      const lines = out.trim().split("\n");
      if (lines.at(-1)!.startsWith("begin")) midBatch++;

      // The file opens cleanly, passes an integrity check, and holds whole batches only.
      const raw = new DatabaseSync(db);
      assertEquals(
        (raw.prepare("PRAGMA integrity_check").get() as { integrity_check: string })
          .integrity_check,
        "ok",
      );
      raw.close();
      const store = SqliteEventStore.open(db);
      try {
        const head = await store.headPosition();
        assertEquals(head % BATCH, 0, `kill ${k}: head ${head} is a whole number of batches`);
        assertGreaterOrEqual(head, lastCount);
        const [info] = await store.streams("session-crash");
        assertEquals(info?.version ?? 0, head);
        let expected = 1;
        let count = 0;
        for await (const e of store.readAll()) {
          if (e.position !== expected++) throw new Error(`kill ${k}: gap at ${e.position}`);
          count++;
        }
        assertEquals(count, head);
        lastCount = head;
      } finally {
        store.close();
      }
    }
    // Most kills landed inside an append, so the test exercised what it claims.
    assertGreaterOrEqual(midBatch, KILLS / 2);
    assert(lastCount > 0, "some batches were committed");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
