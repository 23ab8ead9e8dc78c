/**
 * `cairn migrate` between a SQLite file and a real PostgreSQL server (a throwaway cluster for
 * this file), both ways: every event (positions, versions, stored text), stream, idempotency
 * key and blob arrives, the copy reads and folds as its source does, appends go on above the
 * source's head, and a target that holds a log is refused.
 */
import { pgTestsSkipped, startCluster } from "../../events/postgres_cluster.ts";
import { PostgresEventStore } from "../../events/postgres_event_store.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import type { EventStore } from "../../events/event_store.ts";
import type { NewEvent, StoredEvent } from "../../events/schemas.ts";
import { stateAt } from "../../engine/timeline/time_travel.ts";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { cairn } from "../_fixtures/cli_run.ts";
import { realisticCapture } from "../_fixtures/realistic_capture.ts";
import { DatabaseSync } from "node:sqlite";

const CORPUS = "/work/shared/corpus";
const step = (index: number): NewEvent => ({ type: "StepStarted", data: { index, text: "s" } });

async function collect(it: AsyncIterable<StoredEvent>): Promise<StoredEvent[]> {
  const out: StoredEvent[] = [];
  for await (const e of it) out.push(e);
  return out;
}

async function contents(store: EventStore) {
  const streams = await store.streams();
  const perStream: Record<string, StoredEvent[]> = {};
  for (const s of streams) perStream[s.streamId] = await collect(store.readStream(s.streamId));
  return {
    all: await collect(store.readAll()),
    head: await store.headPosition(),
    streams,
    perStream,
  };
}

Deno.test({
  name: "cairn migrate copies a SQLite log to PostgreSQL and back, verified, appends going on",
  ignore: pgTestsSkipped(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const cluster = await startCluster();
    const dir = await Deno.makeTempDir({ prefix: "cairn_migrate_" });
    try {
      const a = `${dir}/a.db`;
      for (
        const f of [
          "chrome-recorder/puppeteer-replay_example_recording.json",
          "chrome-recorder/nightwatch_order-a-coffee.json",
        ]
      ) {
        const r = await cairn(["ingest", `${CORPUS}/${f}`, "--db", a]);
        assertEquals(r.code, 0, r.stderr);
      }
      const hierarchy = await Deno.readFile(`${CORPUS}/android/appium-source_theapp_login.xml`);
      const src = SqliteEventStore.open(a);
      const blob = await src.putBlob(hierarchy, "application/xml");
      await src.putBlob(new TextEncoder().encode("<other/>"), "application/xml");
      await src.append("session-keyed", [step(0), step(1)], { idempotencyKey: "k1" });
      // a deleted stream in the middle and one at the tail: positions left empty stay empty
      await src.append("session-gone", [step(0), step(1)]);
      await src.append("session-keyed", [step(2)]);
      await src.append("session-tail", [step(0)]);
      await src.deleteStream("session-gone");
      await src.deleteStream("session-tail");
      const before = await contents(src);
      const sessionId = before.streams[0]!.streamId;
      const stateBefore = await stateAt(src, sessionId);
      src.close();
      assert(before.all.length > 10, `only ${before.all.length} events`);

      const pg = await cluster.createDatabase("copy");
      let r = await cairn(["migrate", "--from", a, "--to", pg]);
      assertEquals(r.code, 0, r.stderr);
      assertStringIncludes(
        r.stdout,
        `copied ${before.all.length} events (${before.streams.length} streams, head ${before.head})`,
      );
      // a log with no parsed screens migrates as before
      assertStringIncludes(r.stdout, "1 idempotency keys and 2 blobs (0 parsed screens");

      const copy = await PostgresEventStore.connect(pg);
      try {
        assertEquals(await contents(copy), before);
        assertEquals(await stateAt(copy, sessionId), stateBefore);
        assertEquals((await copy.getBlob(blob.hash)).bytes, hierarchy);
        // the history command reads the copy as it reads the file
        const h1 = await cairn(["history", sessionId.replace(/^session-/, ""), "--db", a]);
        const h2 = await cairn(["history", sessionId.replace(/^session-/, ""), "--db", pg]);
        assertEquals(h2.code, 0, h2.stderr);
        assertEquals(h2.stdout, h1.stdout);
        // a retried keyed batch is still a repeat; new events go on above the deleted tail
        const again = await copy.append("session-keyed", [step(0), step(1)], {
          idempotencyKey: "k1",
        });
        assertEquals(again.duplicate, true);
        const next = await copy.append("session-keyed", [step(3)], { expectedVersion: 3 });
        assertEquals(next.positions, [before.head + 1]);
      } finally {
        await copy.end();
      }

      // and back into a new file
      const b = `${dir}/b.db`;
      r = await cairn(["migrate", "--from", pg, "--to", b]);
      assertEquals(r.code, 0, r.stderr);
      const back = SqliteEventStore.open(b);
      try {
        const after = await contents(back);
        assertEquals(after.all.slice(0, -1), before.all);
        assertEquals(after.all.at(-1)!.position, before.head + 1);
        assertEquals(after.perStream["session-keyed"]!.map((e) => e.streamVersion), [1, 2, 3, 4]);
        assertEquals(await stateAt(back, sessionId), stateBefore);
        // the file's stream runs were rebuilt: appends check versions against them
        const more = await back.append("session-keyed", [step(4)], { expectedVersion: 4 });
        assertEquals(more, { positions: [before.head + 2], streamVersion: 5, duplicate: false });
        assertEquals(
          (await collect(back.readStream("session-keyed", { from: 4 }))).map((e) => e.position),
          [before.head + 1, before.head + 2],
        );
      } finally {
        back.close();
      }

      // a target holding a log is refused, naming it; so is a missing flag
      r = await cairn(["migrate", "--from", pg, "--to", a]);
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, `${a}: not empty`);
      r = await cairn(["migrate", "--to", a]);
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, "--from LOG is required");
      // what a PostgreSQL log cannot do, or needs, is said in one line (exit 2)
      r = await cairn(["blaze", "start", "--db", pg.replace("postgres@", "postgres:pw@")]);
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, "HTTP API (/v1/blaze/…)");
      assertStringIncludes(r.stderr, "postgres:***@");
      r = await cairn(["serve", "--worker", "--db", a]);
      assertEquals(r.code, 2);
      assertStringIncludes(r.stderr, "give --db postgres://");
    } finally {
      await cluster.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** Every derived row of a SQLite file, as (hash, kind, sha256 of bytes) text, in order. */
function sqliteDerived(path: string): string[] {
  const db = new DatabaseSync(path);
  try {
    return db.prepare("SELECT hash, kind, bytes FROM derived ORDER BY hash, kind").all().map((r) =>
      `${r.hash} ${r.kind} ${r.bytes && Array.from(r.bytes as Uint8Array).join(",")}`
    );
  } finally {
    db.close();
  }
}

/** Every derived row of a PostgreSQL store, as {@linkcode sqliteDerived} gives them. */
async function pgDerived(url: string): Promise<string[]> {
  const store = await PostgresEventStore.connect(url);
  try {
    const rows = await store.sql`SELECT hash, kind, bytes FROM derived
      ORDER BY hash COLLATE "C", kind COLLATE "C"`;
    return rows.map((r) =>
      `${r.hash} ${r.kind} ${Array.from(new Uint8Array(r.bytes as Uint8Array)).join(",")}`
    );
  } finally {
    await store.end();
  }
}

Deno.test({
  name:
    "cairn migrate copies the parsed screens kept beside the hierarchies, both ways, and the copy's trails read them",
  ignore: pgTestsSkipped(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const cluster = await startCluster();
    const dir = await Deno.makeTempDir({ prefix: "cairn_migrate_derived_" });
    try {
      const a = `${dir}/a.db`;
      // two captures on different real screens (Google Tasks, Wikipedia search)
      const sessions: string[] = [];
      for (
        const dump of ["uiautomator_google_tasks_list.xml", "uiautomator_wikipedia_search.xml"]
      ) {
        const file = `${dir}/${dump}.capture.json`;
        await Deno.writeTextFile(file, realisticCapture({ actions: 6, dump }));
        const r = await cairn(["ingest", file, "--db", a, "--json"]);
        assertEquals(r.code, 0, r.stderr);
        sessions.push(JSON.parse(r.stdout)[0].sessionId);
      }
      // a row of another kind is copied as well
      const src = SqliteEventStore.open(a);
      const anyHash = sqliteDerived(a)[0]!.split(" ")[0]!;
      await src.putDerived(anyHash, "other/v1", new Uint8Array([1, 2, 3]));
      src.close();
      const rows = sqliteDerived(a);
      assertEquals(rows.length, 13);

      const trails = async (db: string) => {
        const out: string[] = [];
        for (const s of sessions) {
          const r = await cairn(["optimize", s, "--db", db]);
          assertEquals(r.code, 0, r.stderr);
          out.push(r.stdout);
        }
        return out;
      };
      const before = await trails(a);

      const pg = await cluster.createDatabase("derived");
      let r = await cairn(["migrate", "--from", a, "--to", pg]);
      assertEquals(r.code, 0, r.stderr);
      assertStringIncludes(r.stdout, "(13 parsed screens kept beside them); verified");
      assertEquals(await pgDerived(pg), rows);
      assertEquals(await trails(pg), before);

      const b = `${dir}/b.db`;
      r = await cairn(["migrate", "--from", pg, "--to", b]);
      assertEquals(r.code, 0, r.stderr);
      assertStringIncludes(r.stdout, "(13 parsed screens kept beside them); verified");
      assertEquals(sqliteDerived(b), rows);
      assertEquals(await trails(b), before);

      // the hierarchies of the copies no longer parse: only the copied parsed screens give the trails
      const db = new DatabaseSync(b);
      db.exec(
        "UPDATE blobs SET bytes = CAST('<hierarchy><broken' AS BLOB) WHERE media_type = 'application/xml'",
      );
      db.close();
      assertEquals(await trails(b), before);
      const copy = await PostgresEventStore.connect(pg);
      try {
        await copy.sql`UPDATE blobs SET bytes = convert_to('<hierarchy><broken', 'UTF8')
          WHERE media_type = 'application/xml'`;
      } finally {
        await copy.end();
      }
      assertEquals(await trails(pg), before);
    } finally {
      await cluster.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
