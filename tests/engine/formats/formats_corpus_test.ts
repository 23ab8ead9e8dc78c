/**
 * Every import format on real files: the Chrome DevTools Recorder corpus and Cairn's samples
 * go into a real SQLite store, come out through each export format that can hold them, go in
 * again, and must give equal events (`comparableEvents`: ignoring positions, `meta`, the
 * generated session and action ids, and `SessionStarted.source`).
 */
import { assert, assertEquals, assertRejects } from "../../_fixtures/assert.ts";
import { ConcurrencyError } from "../../../events/event_store.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { loadSession, renderSession, type SessionExportFormat } from "../../../cli/export.ts";
import { ingestFile } from "../../../cli/ingest.ts";
import { comparableEvents } from "../../../engine/formats/round_trip.ts";

const CORPUS = new URL("../../../../shared/corpus/chrome-recorder/", import.meta.url).pathname;
const SAMPLES = new URL("../../testdata/formats/", import.meta.url).pathname;

async function withStore(fn: (store: SqliteEventStore, dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "cairn_corpus_" });
  const store = SqliteEventStore.open(`${dir}/c.db`);
  try {
    await fn(store, dir);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

const CASES: { file: string; formats: SessionExportFormat[]; sessions?: number }[] = [
  ...[...Deno.readDirSync(CORPUS)].filter((e) => e.name.endsWith(".json")).map((e) => ({
    file: CORPUS + e.name,
    formats: ["events"] as SessionExportFormat[],
    ...(e.name.startsWith("devtools-frontend") ? { sessions: 35 } : {}),
  })),
  { file: SAMPLES + "bottom_nav.capture.json", formats: ["events", "capture"] },
  {
    file: SAMPLES + "vw-ax-agent-trace-7f3c-20251219-120000.json",
    formats: ["events", "recording_v1"],
  },
  {
    file: SAMPLES + "vw-ax-human-hs-0042-20251219-130500.json",
    formats: ["events", "recording_v1"],
  },
];

Deno.test("the Chrome Recorder corpus has files of the old and the new export format", () => {
  const names = CASES.map((c) => c.file);
  assert(names.some((n) => n.endsWith("old-format.json")));
  assert(names.some((n) => n.endsWith("new-format.json")));
  assertEquals(names.filter((n) => n.startsWith(CORPUS)).length, 12);
});

for (const c of CASES) {
  const name = c.file.split("/").at(-1)!;
  Deno.test(`ingestFile() imports ${name} and export → ingest gives equal events`, async () => {
    await withStore(async (store, dir) => {
      const result = await ingestFile(store, c.file);
      assertEquals(result.sessions.length, c.sessions ?? 1);
      for (const { sessionId, events } of result.sessions) {
        const original = await loadSession(store, sessionId);
        assertEquals(original.events.length, events);
        assert(events >= 2);
        for (const format of c.formats) {
          const rendered = renderSession(original, format);
          const path = `${dir}/${rendered.fileName}`;
          await Deno.writeTextFile(path, rendered.text);
          const again = await ingestFile(store, path);
          assertEquals(again.format, format === "capture" ? "capture" : format);
          const copy = await loadSession(store, again.sessionId);
          assertEquals(
            comparableEvents(copy.events),
            comparableEvents(original.events),
            `${name} via ${format}`,
          );
        }
      }
    });
  });
}

Deno.test("ingestFile() stores a DevTools map of flows whole or not at all", async () => {
  await withStore(async (store) => {
    const file = CORPUS + "devtools-frontend_recorder_test_snapshots.json";
    // the 20th of its 35 flows would become session "fixed-20", which already exists
    await store.append("session-fixed-20", [{
      type: "StepStarted",
      data: { index: 0, text: "x" },
    }]);
    const head = await store.headPosition();
    await assertRejects(() => ingestFile(store, file, { sessionId: "fixed" }), ConcurrencyError);
    assertEquals(await store.headPosition(), head);
    assertEquals((await store.streams()).map((s) => s.streamId), ["session-fixed-20"]);

    const result = await ingestFile(store, file, { sessionId: "other" });
    assertEquals(result.sessions.length, 35);
    const streams = await store.streams("session-other");
    assertEquals(streams.length, 35);
    // one transaction: the flows' positions follow each other with no gap
    for (let i = 1; i < streams.length; i++) {
      assertEquals(streams[i]!.firstPosition, streams[i - 1]!.lastPosition + 1);
    }
  });
});
