/**
 * A step whose click leads to an error page fails the comparison, as an opening page that answers
 * 404/500 fails the validation: real Chromium, SQLite and HTTP on 127.0.0.1. The capture clicks
 * the start page's "Details" link to a page that answered 200; the replays click the same link,
 * found by the same selector, and land on the same page body — answered with HTTP 500, or not
 * loaded at all (nothing listening: the browser's own error page). Only the answer says the step
 * went wrong: before, the click compared as "same element" and the step passed.
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { runValidation } from "../../../runners/validation/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";

const OPEN = "Open the details";
const READ = "Note the product name";

/** A port nothing listens on (bound, then closed). */
function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

interface Site {
  server: Deno.HttpServer<Deno.NetAddr>;
  base: string;
  /** What `/details` answers with (200 for the capture). */
  detailsStatus: number;
  /** Where the start page's link points (default `/details`). */
  detailsHref: string;
}

function serveSite(): Site {
  const site = { detailsStatus: 200, detailsHref: "/details" } as Site;
  site.server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    const html = (body: string, status = 200) =>
      new Response(
        `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`,
        {
          status,
          headers: { "content-type": "text/html", "cache-control": "no-store" },
        },
      );
    if (path === "/start") {
      return html(`<h1>Shop</h1><p><a href="${site.detailsHref}">Details</a></p>`);
    }
    if (path === "/details") {
      return html(`<h1>Espresso</h1><p id="product-name">Espresso</p>`, site.detailsStatus);
    }
    return html("<h1>Not found</h1>", 404);
  });
  site.base = `http://127.0.0.1:${site.server.addr.port}`;
  return site;
}

async function blaze(driver: ChromeDriver, store: SqliteEventStore, url: string): Promise<string> {
  const s = await BlazeSession.start(driver, store, {
    url,
    prompt: "Open the details and note the product",
    screenshots: false,
    settleMs: 100,
  });
  const snap = async () => (await s.call("snapshot", {})).output;
  await s.call("step", { text: OPEN });
  const tap = await s.call("tap", { ref: refIn(await snap(), "Details") });
  assert(tap.ok, tap.error);
  await s.call("step", { text: READ });
  const read = await s.call("read", { ref: refIn(await snap(), "Espresso"), storeAs: "product" });
  assert(read.ok, read.error);
  await s.end("completed");
  return s.id;
}

Deno.test("runValidation() fails a step whose click lands on an HTTP 500 page or the browser's error page, though the capture's click saw a 200 page", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-errnav-" });
  const site = serveSite();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  try {
    const url = `${site.base}/start`;
    const sessionId = await blaze(driver, store, url);

    // The control: with the page answering 200, the same replay is stable.
    const ok = await runValidation(driver, store, sessionId, { url, policy: "ci" });
    assertEquals(ok.status, "stable", ok.message);

    const cases: [string, () => void, string][] = [
      ["HTTP 500", () => site.detailsStatus = 500, `${site.base}/details answered HTTP 500`],
      ["browser error page", () => {
        site.detailsStatus = 200;
        site.detailsHref = `http://127.0.0.1:${closedPort()}/details`;
      }, "could not be loaded (net::ERR_CONNECTION_REFUSED)"],
    ];
    for (const [name, arrange, expected] of cases) {
      arrange();
      const progress: string[] = [];
      const state = await runValidation(driver, store, sessionId, {
        url,
        policy: "ci",
        onProgress: (l) => progress.push(l),
      });
      const log = `${name}: ${progress.join("\n")}\n${state.message}`;
      assertEquals(state.status, "failed", log);
      const steps = state.finalSteps!;
      const open = steps.find((s) => s.step === OPEN)!;
      assertEquals(open.status, "unstable", log);
      const evidence = open.evidence.join("\n");
      assertStringIncludes(evidence, "led to an error page", log);
      assertStringIncludes(evidence, expected, log);
      // The click itself found the same element: the failure is the page it led to.
      assertStringIncludes(evidence, "same element", log);
      assertStringIncludes(state.message ?? "", OPEN, log);
    }
  } finally {
    await driver.close();
    store.close();
    await site.server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
});
