import { assertEquals, assertRejects } from "../_fixtures/assert.ts";
import { DatabaseSync } from "node:sqlite";
import { ingestFile } from "../../cli/ingest.ts";
import { PostgresEventStore, SqliteEventStore } from "../../events/mod.ts";
import { pgTestsSkipped, startCluster } from "../../events/postgres_cluster.ts";
import { InvalidStreamError } from "../../events/mod.ts";
import { projectSessionTrail } from "../../engine/optimizer/mod.ts";
import {
  encodeScreen,
  makeNode,
  parsedScreenKind,
  SCREEN_CODEC_VERSION,
} from "../../engine/screens/mod.ts";
import { realisticCapture } from "../_fixtures/realistic_capture.ts";

/**
 * A capture of 12 actions on real Google Tasks dumps, each varied, ingested into a store file in a
 * fresh folder; the session's trail as projected right after.
 */
async function ingested(dir: string) {
  const file = `${dir}/tasks.capture.json`;
  await Deno.writeTextFile(file, realisticCapture({ actions: 12 }));
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const { sessionId } = await ingestFile(store, file);
  const yaml = (await projectSessionTrail(store, sessionId)).yaml;
  store.close();
  return { sessionId, yaml };
}

/** The session's trail projected again from the store file, opened anew. */
async function projectAgain(dir: string, sessionId: string): Promise<string> {
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  try {
    return (await projectSessionTrail(store, sessionId)).yaml;
  } finally {
    store.close();
  }
}

Deno.test("ingest keeps each distinct screen parsed beside its hierarchy, and a projection reads it instead of parsing", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { sessionId, yaml } = await ingested(dir);

    const db = new DatabaseSync(`${dir}/cairn.db`);
    const hierarchies = db.prepare(
      "SELECT hash FROM blobs WHERE media_type = 'application/xml' ORDER BY hash",
    ).all().map((r) => r.hash);
    const rows = db.prepare("SELECT hash, kind FROM derived ORDER BY hash").all();
    assertEquals(hierarchies.length, 12);
    assertEquals(rows.map((r) => r.hash), hierarchies);
    const kinds = new Set(rows.map((r) => r.kind));
    assertEquals([...kinds], [parsedScreenKind("uiautomator-dump")]);

    // the hierarchies no longer parse: only the parsed screens can give the same trail
    db.exec(
      "UPDATE blobs SET bytes = CAST('<hierarchy><broken' AS BLOB) WHERE media_type = 'application/xml'",
    );
    assertEquals(await projectAgain(dir, sessionId), yaml);

    // parsed screens of another kind (an older codec) are not read: the hierarchy is parsed
    const other = encodeScreen({
      platform: "android",
      format: "uiautomator2",
      root: makeNode({ className: "View", text: "not this screen" }),
      width: 10,
      height: 10,
    })!;
    db.prepare("UPDATE derived SET kind = ?, bytes = ?").run(
      `cairn.screen/v${SCREEN_CODEC_VERSION - 1} uiautomator-dump`,
      other,
    );
    await assertRejects(() => projectAgain(dir, sessionId), InvalidStreamError);
    db.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a session whose parsed screens are gone projects the same trail from its hierarchies", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { sessionId, yaml } = await ingested(dir);
    const db = new DatabaseSync(`${dir}/cairn.db`);
    db.exec("DELETE FROM derived");
    db.close();
    assertEquals(await projectAgain(dir, sessionId), yaml);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name:
    "on PostgreSQL too, ingest keeps the parsed screens and a projection reads them instead of parsing",
  ignore: pgTestsSkipped(),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    const cluster = await startCluster();
    try {
      const file = `${dir}/tasks.capture.json`;
      await Deno.writeTextFile(file, realisticCapture({ actions: 8 }));
      const lite = SqliteEventStore.open(`${dir}/cairn.db`);
      const expected = (await projectSessionTrail(
        lite,
        (await ingestFile(lite, file, { sessionId: "s" })).sessionId,
      )).yaml;
      lite.close();

      const store = await PostgresEventStore.connect(await cluster.createDatabase("parsed"));
      try {
        const { sessionId } = await ingestFile(store, file, { sessionId: "s" });
        const [row] = await store.sql`SELECT count(*)::int AS n FROM derived`;
        assertEquals(row?.n, 8);
        // the hierarchies no longer parse: only the parsed screens can give the same trail
        await store.sql`UPDATE blobs SET bytes = convert_to('<hierarchy><broken', 'UTF8')
          WHERE media_type = 'application/xml'`;
        assertEquals((await projectSessionTrail(store, sessionId)).yaml, expected);
        await store.sql`DELETE FROM derived`;
        await assertRejects(() => projectSessionTrail(store, sessionId), InvalidStreamError);
      } finally {
        await store.end();
      }
    } finally {
      await cluster.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
