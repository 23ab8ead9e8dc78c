/**
 * Import and export speed: a synthetic capture of 1,000 actions (each with its own 2 KB
 * hierarchy, memory and NL step), DevTools' map of 35 Recorder flows, and the capture written
 * back. Run: `deno bench -A tests/engine/formats/formats_bench.ts`.
 */
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { ingestFile, prepareFile } from "../../../cli/ingest.ts";
import { loadSession, renderSession } from "../../../cli/export.ts";

const ACTIONS = 1000;
const dir = Deno.makeTempDirSync({ prefix: "cairn_formats_bench_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

function screen(i: number): string {
  const rows = Array.from(
    { length: 12 },
    (_, r) =>
      `<node index="${r}" text="Row ${r} of screen ${i}" resource-id="app:id/row_${r}" ` +
      `class="android.widget.TextView" bounds="[0,${r * 100}][1080,${r * 100 + 100}]" />`,
  ).join("");
  return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">` +
    `<node index="0" class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">${rows}</node>` +
    `</hierarchy>`;
}

const capture = {
  format: "cairn.capture/v1",
  platform: "android",
  prompt: "Bench",
  memory: { email: "alice@example.com" },
  actions: Array.from({ length: ACTIONS }, (_, i) => ({
    action: i % 3 === 0 ? "inputText" : "tap",
    coordinates: { x: 540, y: (i % 12) * 100 + 50 },
    viewHierarchy: screen(i),
    nlStep: `Step ${Math.floor(i / 5)}`,
    ...(i % 3 === 0 ? { text: `value ${i}` } : {}),
    memoryState: { email: "alice@example.com", n: String(i) },
    timestamp: 1767225600000 + i * 1000,
  })),
};
const capturePath = `${dir}/bench.capture.json`;
Deno.writeTextFileSync(capturePath, JSON.stringify(capture));
const devtools = new URL(
  "../../../../shared/corpus/chrome-recorder/devtools-frontend_recorder_test_snapshots.json",
  import.meta.url,
).pathname;

const store = SqliteEventStore.open(`${dir}/bench.db`);
globalThis.addEventListener("unload", () => store.close());
const stored = await ingestFile(store, capturePath);

Deno.bench("validate + map a 1,000-action capture (no store)", { group: "capture" }, async () => {
  await prepareFile(capturePath);
});

Deno.bench("ingest a 1,000-action capture into SQLite", {
  group: "capture",
  baseline: true,
}, async () => {
  await ingestFile(store, capturePath);
});

Deno.bench("export that session as a capture file", async () => {
  renderSession(await loadSession(store, stored.sessionId), "capture");
});

Deno.bench("export that session as events (JSON lines with blobs)", async () => {
  renderSession(await loadSession(store, stored.sessionId), "events");
});

Deno.bench("ingest DevTools' map of 35 Recorder flows", async () => {
  await ingestFile(store, devtools);
});
