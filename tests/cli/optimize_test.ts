import { assert, assertEquals } from "../_fixtures/assert.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";
import { prepareFile, withSessionId } from "../../cli/ingest.ts";
import { ingestOnce } from "../../cli/optimize.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Files of every import format, and a DevTools map of two Recorder flows (two sessions). */
async function importFiles(dir: string): Promise<string[]> {
  const flow = JSON.parse(
    await Deno.readTextFile(`${ROOT}tests/testdata/playback/signin.recorder.json`),
  );
  const flows = `${dir}/two.recorder.json`;
  await Deno.writeTextFile(flows, JSON.stringify({ "sign in": flow, "sign in again": flow }));
  return [
    ...["inventory", "merchant", "web_checkout"].map((n) => `${ROOT}examples/${n}.capture.json`),
    `${ROOT}tests/testdata/playback/signin.recording_v1.json`,
    `${ROOT}tests/testdata/playback/signin.recorder.json`,
    flows,
  ];
}

Deno.test("withSessionId() makes what prepareFile() with that sessionId makes, for every format", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_optimize_" });
  try {
    for (const file of await importFiles(dir)) {
      const renamed = withSessionId(await prepareFile(file, { sessionId: "probe" }), "s1");
      const direct = await prepareFile(file, { sessionId: "s1" });
      assertEquals(renamed, direct, file);
      const ids = renamed.sessions.map((s) => s.sessionId);
      assertEquals(ids, ids.map((_, i) => (i === 0 ? "s1" : `s1-${i + 1}`)), file);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("ingestOnce() refuses a capture named as a FIFO at once, without waiting for a writer (a capture must be a regular file)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_optimize_" });
  const other = SqliteEventStore.open(`${dir}/other.db`);
  try {
    const fifo = `${dir}/once.capture.json`;
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert(made.success, new TextDecoder().decode(made.stderr));
    const err = await ingestOnce(other, fifo).then(() => undefined, (e: Error) => e);
    assert(err instanceof Error && /FIFO/.test(err.message), String(err));
    assertEquals(await other.headPosition(), 0);
  } finally {
    other.close();
    await Deno.remove(dir, { recursive: true });
  }
});
