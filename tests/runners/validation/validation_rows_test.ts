/**
 * A v2 trail's button repeated in identical rows ("Add" in every fruit row) whose captured test
 * id is random per load: the refinement anchors it to its row (`childOf: { text }`), never to a
 * position (`index`), which would pick whichever row the shuffled list shows first while its
 * role, name and size agree. Real Chromium on a 127.0.0.1 page that shuffles the rows and
 * regenerates ids on every load, a real SQLite log, the real CLI.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";

const FRUITS = ["Apple", "Banana", "Cherry", "Date"];

function token(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => "abcdefghij"[b % 10]).join(
    "",
  );
}

/** Rows of identical "Add" buttons, shuffled, with random ids and test ids on every load. */
function serveRows(): { url: string; close: () => Promise<void> } {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, () => {
    const order = [...FRUITS].sort(() => crypto.getRandomValues(new Uint8Array(1))[0]! - 128);
    const rows = order.map((f) =>
      `<li><span>${f}</span> <button id="b-${token()}" data-testid="add-${token()}" ` +
      `onclick="document.getElementById('out').textContent='Added ${f}'">Add</button></li>`
    ).join("");
    return new Response(
      `<!doctype html><html><head><meta charset="utf-8"><title>Rows</title></head><body>` +
        `<h1>Fruit</h1><ul>${rows}</ul><div id="out" data-testid="out"></div></body></html>`,
      { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } },
    );
  });
  return { url: `http://127.0.0.1:${server.addr.port}/rows`, close: () => server.shutdown() };
}

/** Blazes "Add a banana" (the Add button of the Banana row) and the "Added Banana" it shows. */
async function blaze(db: string, url: string): Promise<string> {
  const store = SqliteEventStore.open(db);
  const driver = await ChromeDriver.launch();
  try {
    const s = await BlazeSession.start(driver, store, { url, prompt: "Add a banana" });
    const snap = (await s.call("snapshot", {})).output;
    const lines = snap.split("\n");
    const at = lines.findIndex((l) => l.includes('"Banana"'));
    const button = lines.slice(at).find((l) => l.includes("button") && l.includes('"Add"'));
    const tap = await s.call("tap", { ref: refIn(button ?? "", "Add"), step: "Add a banana" });
    assert(tap.ok, tap.error);
    const after = (await s.call("snapshot", {})).output;
    const shown = after.split("\n").find((l) => l.includes('"Added Banana"'));
    const check = await s.call("assert", {
      ref: refIn(shown ?? "", "Added Banana"),
      text: "Added Banana",
      step: "Verify banana added",
    });
    assert(check.ok, check.error);
    await s.call("end", {});
    return s.id;
  } finally {
    await driver.close();
    store.close();
  }
}

Deno.test("cairn validate: an Add button repeated in shuffled rows is refined to its row anchor, never to an index", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-rows-" });
  const server = serveRows();
  try {
    const db = `${dir}/cairn.db`;
    const sessionId = await blaze(db, server.url);
    const out = `${dir}/rows.trail.yaml`;
    const r = await cairn([
      "validate",
      sessionId,
      "--db",
      db,
      "--url",
      server.url,
      "--heuristics",
      "v2",
      "--out",
      out,
      "--json",
    ]);
    const report = JSON.parse(r.stdout);
    const trail: string = report.trail;
    // never a position among identical rows: the row showing "Banana" picks it, so every
    // later replay clicked Banana's button and showed "Added Banana"
    assert(!/\bindex: /.test(trail), `${r.stderr}\n${trail}`);
    assertEquals(report.status, "stable", r.stderr);
    assertEquals(r.code, 0, r.stderr);
    assert(/childOf:\s*\n\s*text: "?Banana"?/.test(trail), `${r.stderr}\n${trail}`);
    assertEquals(report.runs.at(-1).steps.map((s: { passed: boolean }) => s.passed), [true, true]);
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
