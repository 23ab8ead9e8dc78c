/**
 * A validation whose opening page answers with an HTTP error status proves nothing: real
 * Chromium, SQLite and HTTP on 127.0.0.1. The server answers the tester's shop page
 * (tests/testdata/optimizer_v2) with 200, 404 or 500 — the same page each time, so every step
 * would replay and compare as it does on the 200 page; only the status says the trail ran on an
 * error page. Replay warns (`HTTP 404 Not Found`) and goes on, as Playwright's `goto` does;
 * validation ends `failed`, naming the status and the url, and compares, refines and flags no step.
 */
import { assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { cairn } from "../../_fixtures/cli_run.ts";
import { ingestOnce } from "../../../cli/optimize.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { runValidation, validationStream } from "../../../runners/validation/runner.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";

const DIR = new URL("../../testdata/optimizer_v2/", import.meta.url).pathname;
const CAPTURE = `${DIR}shop.capture.json`;

/** The shop page at `/ok` (200), `/gone` (404) and `/broken` (500). */
function serveShop(): Deno.HttpServer<Deno.NetAddr> {
  const page = Deno.readTextFileSync(`${DIR}shop.html`);
  const status: Record<string, number> = { "/ok": 200, "/gone": 404, "/broken": 500 };
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) =>
      new Response(page, {
        status: status[new URL(req.url).pathname] ?? 404,
        headers: { "content-type": "text/html", "cache-control": "no-store" },
      }),
  );
}

Deno.test("runValidation() ends failed, naming the status and url, when the opening page answers HTTP 404 or 500 (the same page with 200 is stable)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-status-" });
  const server = serveShop();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  try {
    const sessionId = await ingestOnce(store, CAPTURE);
    const base = `http://127.0.0.1:${server.addr.port}`;

    // The control: the page itself replays and compares cleanly.
    const ok = await runValidation(driver, store, sessionId, { url: `${base}/ok`, policy: "ci" });
    assertEquals(ok.status, "stable", ok.message);

    for (const [path, status] of [["/gone", "HTTP 404 Not Found"], ["/broken", "HTTP 500"]]) {
      const progress: string[] = [];
      const state = await runValidation(driver, store, sessionId, {
        url: `${base}${path}`,
        policy: "authoring",
        onProgress: (l) => progress.push(l),
      });
      assertEquals(state.status, "failed", `${path}: ${progress.join("\n")}`);
      const message = state.message ?? "";
      assertStringIncludes(message, `${base}${path} answered ${status}`);
      assertStringIncludes(message, "Nothing was validated: no step was compared");
      // Nothing was compared, refined or flagged: no iteration, every step as the capture's.
      assertEquals(state.iteration, 0, message);
      assertEquals(state.iterations.length, 0);
      assertEquals(parseTrail(state.trail).trail, parseTrail(ok.trail).trail);
      const events = [];
      for await (const e of store.readStream(validationStream(state.validationId))) {
        events.push(e.type);
      }
      assertEquals(events, ["ValidationStarted", "ValidationCompleted"]);
    }
  } finally {
    await driver.close();
    store.close();
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn validate exits 1 with the status and url when the page answers HTTP 404, and writes no trail", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-status-" });
  const server = serveShop();
  try {
    const url = `http://127.0.0.1:${server.addr.port}/gone`;
    const out = `${dir}/shop.trail.yaml`;
    const r = await cairn([
      "validate",
      CAPTURE,
      "--db",
      `${dir}/cairn.db`,
      "--url",
      url,
      "--policy",
      "ci",
      "--out",
      out,
    ]);
    assertEquals(r.code, 1, r.stderr);
    assertStringIncludes(r.stderr, `error: The page could not be opened (${url} answered HTTP 404`);
    let written = true;
    await Deno.stat(out).catch(() => written = false);
    assertEquals(written, false, "a failed validation writes no trail");
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
