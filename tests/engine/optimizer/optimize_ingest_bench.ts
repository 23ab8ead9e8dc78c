/**
 * What `cairn optimize FILE` pays before it projects: `ingestOnce()` of each
 * `examples/*.capture.json` into a fresh SQLite store (validate, map, hash for the content-based
 * session id, store), beside one `prepareFile()` of the same files (validate and map alone).
 * Run: `deno bench -A tests/engine/optimizer/optimize_ingest_bench.ts`.
 */
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { prepareFile } from "../../../cli/ingest.ts";
import { ingestOnce } from "../../../cli/optimize.ts";

const examples = new URL("../../../examples/", import.meta.url).pathname;
const files = [...Deno.readDirSync(examples)]
  .filter((e) => e.isFile && e.name.endsWith(".capture.json"))
  .map((e) => examples + e.name)
  .sort();
if (files.length === 0) throw new Error(`no *.capture.json in ${examples}`);

Deno.bench("prepareFile() of examples/*.capture.json (validate + map)", {
  group: "optimize-ingest",
  baseline: true,
}, async () => {
  for (const f of files) await prepareFile(f, { sessionId: "probe" });
});

Deno.bench("ingestOnce() of examples/*.capture.json into a fresh store", {
  group: "optimize-ingest",
}, async () => {
  const store = SqliteEventStore.open(":memory:");
  try {
    for (const f of files) await ingestOnce(store, f);
  } finally {
    store.close();
  }
});
