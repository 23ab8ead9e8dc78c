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

Deno.test("ingestOnce() reads and checks its file once: a capture that can be read only once (a FIFO) is stored", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_optimize_" });
  const store = SqliteEventStore.open(`${dir}/c.db`);
  try {
    const source = `${ROOT}examples/web_checkout.capture.json`;
    const expected = await ingestOnce(store, source); // the id of the same content, read normally
    // the screens it names, beside it as in examples/
    await Deno.mkdir(`${dir}/web_checkout`);
    for await (const e of Deno.readDir(`${ROOT}examples/web_checkout`)) {
      await Deno.copyFile(
        `${ROOT}examples/web_checkout/${e.name}`,
        `${dir}/web_checkout/${e.name}`,
      );
    }
    const fifo = `${dir}/once.capture.json`;
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert(made.success, new TextDecoder().decode(made.stderr));
    const other = SqliteEventStore.open(`${dir}/other.db`);
    try {
      const bytes = await Deno.readFile(source);
      const writeOnce = async () => {
        using f = await Deno.open(fifo, { write: true }); // waits for the reader
        for (let at = 0; at < bytes.length;) at += await f.write(bytes.subarray(at));
      };
      const ingest = ingestOnce(other, fifo).then((id) => ({ id }), (err: Error) => ({ err }));
      await writeOnce();
      // a second read would wait for a writer that never comes: give it one with no bytes, so
      // the test ends (with the second read's "empty file") instead of hanging
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<"late">((r) => timer = setTimeout(() => r("late"), 5_000));
      if (await Promise.race([ingest, late]) === "late") {
        (await Deno.open(fifo, { write: true })).close();
      }
      clearTimeout(timer);
      const result = await ingest;
      assert(
        "id" in result,
        `ingestOnce failed (a second read gets an empty file): ${
          "err" in result && result.err.message
        }`,
      );
      assertEquals(result.id, expected);
      const [started] = await Array.fromAsync(
        other.readStream(`session-${expected}`, { limit: 1 }),
      );
      assertEquals([started?.type, (started?.data as { sessionId?: string }).sessionId], [
        "SessionStarted",
        expected,
      ]);
      assertEquals(await other.headPosition(), await store.headPosition());
    } finally {
      other.close();
    }
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
