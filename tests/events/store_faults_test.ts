import { DatabaseSync } from "node:sqlite";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { StoreFileError } from "../../events/event_store.ts";
import { UnreadableEventError } from "../../events/upcasters.ts";
import {
  LATEST_VERSION,
  layoutVersion,
  migrate,
  NewerLayoutError,
} from "../../events/migrations.ts";
import { isIsoDateTime, IsoDateTime } from "../../events/iso_date_time.ts";
import type { NewEvent, StoredEvent } from "../../events/schemas.ts";
import { assert, assertEquals, assertRejects, assertThrows } from "../_fixtures/assert.ts";

const step = (index: number): NewEvent => ({ type: "StepStarted", data: { index, text: "s" } });

async function collect(it: AsyncIterable<StoredEvent>): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

/** A log of 60 events on streams a (1-30) and b (31-60), with one row's columns overwritten. */
async function withDamagedRow(
  position: number,
  columns: Record<string, string | number>,
  fn: (store: SqliteEventStore) => Promise<void>,
) {
  const dir = await Deno.makeTempDir({ prefix: "cairn_faults_" });
  const path = `${dir}/c.db`;
  const store = SqliteEventStore.open(path);
  try {
    await store.append("a", Array.from({ length: 30 }, (_, i) => step(i)));
    await store.append("b", Array.from({ length: 30 }, (_, i) => step(i)));
    // another connection writes what no append would: a cut-off row, an unknown version
    const raw = new DatabaseSync(path);
    const sets = Object.keys(columns).map((c) => `${c} = ?`).join(", ");
    raw.prepare(`UPDATE events SET ${sets} WHERE position = ?`).run(
      ...Object.values(columns),
      position,
    );
    raw.close();
    await fn(store);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("readAll() and readStream() name the position of a stored event that is not JSON", async () => {
  await withDamagedRow(50, { data: '{"trunc' }, async (store) => {
    for (
      const read of [
        () => collect(store.readAll({ from: 1 })),
        () => collect(store.readStream("b")),
        () => collect(store.readStream("b", { from: 15, limit: 10 })),
      ]
    ) {
      const err = await assertRejects(read, UnreadableEventError);
      assertEquals(err.position, 50);
      assert(
        err.message.startsWith(
          "Stored event at position 50 (StepStarted in b) is not valid JSON: data: ",
        ),
        err.message,
      );
      assert(!(err instanceof SyntaxError), "a fault of the log, not of a request");
    }
    // the events before it, and the other stream, still read
    assertEquals((await collect(store.readAll({ from: 1, limit: 49 }))).length, 49);
    assertEquals((await collect(store.readStream("a"))).length, 30);
  });
});

Deno.test("readAll() names the position of a stored event of a newer schema version or unknown type", async () => {
  await withDamagedRow(7, { schema_version: 99 }, async (store) => {
    const err = await assertRejects(() => collect(store.readAll()), UnreadableEventError);
    assertEquals(err.position, 7);
    assertEquals(
      err.message,
      "Stored event at position 7 (StepStarted in a) cannot be read (schema version 99): StepStarted has schema version 99, newer than this Cairn knows (1)",
    );
  });
  await withDamagedRow(8, { type: "FutureThing" }, async (store) => {
    const err = await assertRejects(() => collect(store.readStream("a")), UnreadableEventError);
    assertEquals(err.position, 8);
    assert(err.message.includes('Unknown event type "FutureThing"'), err.message);
  });
  await withDamagedRow(9, { meta: "{" }, async (store) => {
    const err = await assertRejects(() => collect(store.readAll()), UnreadableEventError);
    assert(err.message.includes("position 9 (StepStarted in a) is not valid JSON: meta:"));
  });
});

Deno.test("append() refuses a meta.recordedAt that is not an ISO 8601 date-time, storing nothing", async () => {
  const store = SqliteEventStore.open(":memory:");
  try {
    for (const recordedAt of ["yesterday", "2026-03-09", "2026-02-30T00:00:00Z", ""]) {
      await assertRejects(
        () => store.append("s", [{ ...step(0), meta: { recordedAt } }]),
        TypeError,
        "Event 0 (StepStarted): meta.recordedAt: expected an ISO 8601 date-time",
      );
    }
    assertEquals(await store.headPosition(), 0);
    const ok = "2026-03-09T10:00:02+01:00";
    await store.append("s", [{ ...step(0), meta: { recordedAt: ok } }]);
    assertEquals((await collect(store.readAll()))[0]!.meta.recordedAt, ok);
  } finally {
    store.close();
  }
});

Deno.test("isIsoDateTime() answers as IsoDateTime does", () => {
  const cases = [
    "2026-03-09T10:00:02Z",
    "2026-03-09T10:00:02.123456789-05:30",
    "2024-02-29T00:00:00Z",
    "2023-02-29T00:00:00Z",
    "2026-04-31T00:00:00Z",
    "2026-03-09T10:00Z",
    "2026-03-09T24:00:00Z",
    "2026-03-09T10:00:02",
    "2026-03-09 10:00:02Z",
    "0000-01-01T00:00:00Z",
    "0000-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59.999Z",
    "9999-12-31T23:59:59-01:00",
    "+02026-03-09T10:00:02Z",
    "yesterday",
    "",
  ];
  // and strings near the valid ones: every character of a valid time replaced in turn
  const base = "2026-03-09T10:00:02.5+01:00";
  for (let i = 0; i < base.length; i++) {
    for (const c of ["0", "9", "-", ":", "Z", "T", "."]) {
      cases.push(base.slice(0, i) + c + base.slice(i + 1));
    }
  }
  for (const s of cases) assertEquals(isIsoDateTime(s), IsoDateTime.safeParse(s).success, s);
});

Deno.test("migrate() reads a current file without a lock or a write, and names a newer layout", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_layout_" });
  try {
    const db = new DatabaseSync(`${dir}/c.db`);
    migrate(db);
    assertEquals(layoutVersion(db), LATEST_VERSION);
    // another connection holds the write lock: a current file's migrate() does not wait for it
    const other = new DatabaseSync(`${dir}/c.db`);
    other.exec("BEGIN IMMEDIATE");
    db.exec("PRAGMA busy_timeout = 0");
    assertEquals(migrate(db), []);
    other.exec(
      `INSERT INTO schema_migrations VALUES (${
        LATEST_VERSION + 1
      }, 'future', '2030-01-01T00:00:00Z')`,
    );
    other.exec("COMMIT");
    other.close();
    const err = assertThrows(() => migrate(db), NewerLayoutError);
    assertEquals(err.version, LATEST_VERSION + 1);
    db.close();
    const open = assertThrows(
      () => SqliteEventStore.open(`${dir}/c.db`, { name: "my.db" }),
      StoreFileError,
    );
    assertEquals(open.fault, "newer");
    assertEquals(
      open.message,
      `my.db: written by a newer Cairn (layout version ${
        LATEST_VERSION + 1
      }; this Cairn knows up to ${LATEST_VERSION})`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SqliteEventStore.open() names a damaged (truncated) file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_trunc_" });
  try {
    const path = `${dir}/c.db`;
    const store = SqliteEventStore.open(path);
    const text = "x".repeat(2000);
    for (let i = 0; i < 200; i++) {
      await store.append(`s${i % 7}`, [{ type: "StepStarted", data: { index: i, text } }]);
    }
    store.close(); // the last close copies the WAL into the file
    const size = (await Deno.stat(path)).size;
    await Deno.truncate(path, Math.floor(size / 2));
    for (const readOnly of [false, true]) {
      const err = await assertRejects(async () => {
        const s = SqliteEventStore.open(path, { readOnly });
        try {
          await collect(s.readAll());
        } finally {
          s.close();
        }
      }, StoreFileError);
      assertEquals(err.fault, "damaged");
      assert(
        err.message.startsWith(`${path}: damaged file, not a readable event log`),
        err.message,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
