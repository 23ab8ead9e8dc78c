import { DatabaseSync } from "node:sqlite";
import { databaseContents, LATEST_VERSION, migrate, MIGRATIONS } from "../../events/migrations.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { IdempotencyError } from "../../events/event_store.ts";
import type { StoredEvent } from "../../events/schemas.ts";
import { assertEquals, assertRejects, assertThrows } from "../_fixtures/assert.ts";

/** Writes a database file exactly as the first Cairn layout had it: no schema_migrations. */
function writeV1File(path: string): void {
  const db = new DatabaseSync(path);
  db.exec(`
    CREATE TABLE events (
      position INTEGER PRIMARY KEY, stream_id TEXT NOT NULL, stream_version INTEGER NOT NULL,
      type TEXT NOT NULL, schema_version INTEGER NOT NULL, data TEXT NOT NULL, meta TEXT NOT NULL,
      UNIQUE (stream_id, stream_version));
    CREATE TABLE blobs (hash TEXT PRIMARY KEY, media_type TEXT NOT NULL, size INTEGER NOT NULL, bytes BLOB NOT NULL);
    CREATE TABLE idempotency (key TEXT PRIMARY KEY, stream_id TEXT NOT NULL, positions TEXT NOT NULL, stream_version INTEGER NOT NULL);
  `);
  const ins = db.prepare("INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)");
  const meta = (t: string) => JSON.stringify({ recordedAt: t });
  ins.run(
    1,
    "session-old",
    1,
    "SessionStarted",
    1,
    JSON.stringify({ sessionId: "old", mode: "import", platform: "android" }),
    meta("2024-05-01T10:00:00.000Z"),
  );
  ins.run(
    2,
    "session-old",
    2,
    "StepStarted",
    1,
    JSON.stringify({ index: 0, text: "Open the app" }),
    meta("2024-05-01T10:00:01.000Z"),
  );
  ins.run(
    3,
    "session-old",
    3,
    "ScreenCaptured",
    1,
    JSON.stringify({ hierarchyHash: "c".repeat(64), hierarchySize: 99, format: "uiautomator2" }),
    meta("2024-05-01T10:00:02.000Z"),
  );
  ins.run(
    4,
    "session-two",
    1,
    "StepStarted",
    1,
    JSON.stringify({ index: 0, text: "Other" }),
    meta("2024-05-02T09:00:00.000Z"),
  );
  db.close();
}

Deno.test("SqliteEventStore.open() upgrades a layout-1 file in place and keeps appending after it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_migrate_" });
  const path = `${dir}/old.db`;
  try {
    writeV1File(path);
    const store = SqliteEventStore.open(path);
    try {
      assertEquals(await store.headPosition(), 4);
      const streams = await store.streams("session-");
      assertEquals(
        streams.map((s) => [s.streamId, s.version, s.firstPosition, s.lastPosition, s.createdAt]),
        [
          ["session-old", 3, 1, 3, "2024-05-01T10:00:00.000Z"],
          ["session-two", 1, 4, 4, "2024-05-02T09:00:00.000Z"],
        ],
      );
      const r = await store.append("session-old", [{
        type: "StepStarted",
        data: { index: 1, text: "Next" },
      }], {
        expectedVersion: 3,
      });
      assertEquals(r.positions, [5]);
      const events: StoredEvent[] = [];
      for await (const e of store.readStream("session-old")) events.push(e);
      assertEquals(events.map((e) => e.type), [
        "SessionStarted",
        "StepStarted",
        "ScreenCaptured",
        "StepStarted",
      ]);
    } finally {
      store.close();
    }
    const db = new DatabaseSync(path);
    const versions = db.prepare("SELECT version, name FROM schema_migrations ORDER BY version")
      .all();
    db.close();
    assertEquals(
      versions.map((v) => ({ ...v })),
      MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("migrate() applies nothing to a current file and refuses a newer layout", () => {
  const db = new DatabaseSync(":memory:");
  try {
    assertEquals(migrate(db), MIGRATIONS.map((m) => m.version));
    assertEquals(migrate(db), []);
    db.prepare("INSERT INTO schema_migrations VALUES (?, 'future', 'x')").run(LATEST_VERSION + 1);
    assertThrows(() => migrate(db), Error, "newer than this Cairn knows");
  } finally {
    db.close();
  }
});

Deno.test("databaseContents() tells a new file, an event log of any layout and anything else apart, writing nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_migrate_" });
  const contentsOf = (path: string) => {
    const db = new DatabaseSync(path);
    try {
      return databaseContents(db);
    } finally {
      db.close();
    }
  };
  try {
    await Deno.writeFile(`${dir}/empty.db`, new Uint8Array());
    writeV1File(`${dir}/v1.db`);
    SqliteEventStore.open(`${dir}/current.db`).close();
    const other = new DatabaseSync(`${dir}/other.db`);
    other.exec("CREATE TABLE notes (text TEXT)");
    other.close();
    await Deno.writeTextFile(
      `${dir}/text.db`,
      "not a database, but long enough to have a header\n",
    );
    const names = ["empty", "v1", "current", "other", "text"];
    const bytes = () => Promise.all(names.map((name) => Deno.readFile(`${dir}/${name}.db`)));
    const before = await bytes();
    assertEquals(contentsOf(`${dir}/empty.db`), "empty");
    assertEquals(contentsOf(`${dir}/v1.db`), "event log");
    assertEquals(contentsOf(`${dir}/current.db`), "event log");
    assertEquals(contentsOf(`${dir}/other.db`), "other");
    assertThrows(() => contentsOf(`${dir}/text.db`), Error, "file is not a database");
    assertEquals(await bytes(), before);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the layout-4 migration finds each stream's runs, also across positions a deleted stream left empty", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_migrate_" });
  const path = `${dir}/old.db`;
  try {
    writeV1File(path);
    // session-gone held positions 5 and 6 and was deleted; session-old went on after it
    const db = new DatabaseSync(path);
    db.prepare("INSERT INTO events VALUES (7, 'session-old', 4, 'StepStarted', 1, ?, ?)").run(
      JSON.stringify({ index: 1, text: "Again" }),
      JSON.stringify({ recordedAt: "2024-05-03T09:00:00.000Z" }),
    );
    db.close();
    const store = SqliteEventStore.open(path);
    try {
      const read = async (id: string, from = 1) => {
        const out: number[][] = [];
        for await (const e of store.readStream(id, { from })) {
          out.push([e.streamVersion, e.position]);
        }
        return out;
      };
      assertEquals(await read("session-old"), [[1, 1], [2, 2], [3, 3], [4, 7]]);
      assertEquals(await read("session-old", 4), [[4, 7]]);
      assertEquals(await read("session-two"), [[1, 4]]);
      assertEquals(
        (await store.streams("session-")).map((s) => [s.streamId, s.version, s.lastPosition]),
        [["session-old", 4, 7], ["session-two", 1, 4]],
      );
      const r = await store.append("session-two", [{
        type: "StepStarted",
        data: { index: 1, text: "x" },
      }], {
        expectedVersion: 1,
      });
      assertEquals(r, { positions: [8], streamVersion: 2, duplicate: false });
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("idempotency keys stored before layout 5 still answer repeats and refuse another stream", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_migrate_" });
  const path = `${dir}/old.db`;
  try {
    writeV1File(path);
    const db = new DatabaseSync(path);
    db.exec(`INSERT INTO idempotency VALUES ('k-old', 'session-two', '[4]', 1)`);
    db.close();
    const store = SqliteEventStore.open(path);
    try {
      const again = [{ type: "StepStarted", data: { index: 0, text: "Other" } }] as const;
      assertEquals(
        await store.append("session-two", [...again], { idempotencyKey: "k-old" }),
        { positions: [4], streamVersion: 1, duplicate: true },
      );
      await assertRejects(
        () => store.append("session-old", [...again], { idempotencyKey: "k-old" }),
        IdempotencyError,
        "was used for stream session-two",
      );
      assertEquals(await store.headPosition(), 4);
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
