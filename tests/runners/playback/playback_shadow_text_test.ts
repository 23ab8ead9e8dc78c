/**
 * Text lookups through shadow DOM in real headless Chromium: the driver's `text` lookup and the
 * playback cascade's text level reach a button inside an open shadow root, exactly (never as a
 * substring), on pages served from 127.0.0.1.
 */
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { textQueries } from "../../../engine/playback/cascade.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { assert, assertEquals } from "../../_fixtures/assert.ts";

const SHADOW_HTML = await Deno.readTextFile(
  new URL("../../testdata/web/shadow.html", import.meta.url),
);

/** A shadow-DOM widget whose "Join now" button loses its data-testid in variant `notestid`. */
function joinPage(testId: boolean): string {
  const attr = testId ? ' data-testid="join"' : "";
  return `<!doctype html><html><head><meta charset="utf-8"><title>Join</title></head><body>
<h1>Club</h1><button id="light" onclick="__log.push('light')">Join now today</button>
<join-widget></join-widget>
<script>
globalThis.__log = [];
customElements.define("join-widget", class extends HTMLElement {
  constructor() {
    super();
    const root = this.attachShadow({ mode: "open" });
    root.innerHTML = '<p>Members only</p><button${attr}>Join now</button><button>Join</button>';
    root.querySelector("button").addEventListener("click", () => __log.push("shadow-join"));
  }
});
</script></body></html>`;
}

function serve() {
  let variant = "";
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    (req) => {
      const path = new URL(req.url).pathname;
      const html = path === "/shadow.html"
        ? SHADOW_HTML
        : path === "/join.html"
        ? joinPage(variant !== "notestid")
        : undefined;
      return html === undefined
        ? new Response("not found", { status: 404 })
        : new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    setVariant: (v: string) => (variant = v),
    close: async () => {
      ac.abort();
      await server.finished;
    },
  };
}

async function withChrome(
  fn: (driver: ChromeDriver, server: ReturnType<typeof serve>, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-shadow-text-" });
  const server = serve();
  const driver = await ChromeDriver.launch();
  try {
    await fn(driver, server, dir);
  } finally {
    await driver.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("ChromeDriver.find() by text finds a button inside a shadow root, uniquely and never by substring", async () => {
  await withChrome(async (driver, server) => {
    await driver.navigate(server.url + "shadow.html");
    const [byCss] = await driver.find({ using: "css", value: "#widget-submit" });
    assert(byCss, "the shadow button exists");
    const found = await driver.find({ using: "text", value: "Subscribe" });
    assertEquals(found.length, 1);
    assertEquals(found[0]!.bounds, byCss.bounds);
    assertEquals(found[0]!.text, "Subscribe");
    // Whitespace-normalised, then case-insensitive, still the one button.
    assertEquals(
      (await driver.find({ using: "text", value: "  subscribe \n" }))[0]?.bounds,
      byCss.bounds,
    );
    // Never a substring.
    assertEquals(await driver.find({ using: "text", value: "Subscr" }), []);
    // Each of the cascade's text lookups (XPath) reaches into the shadow root too.
    for (const q of textQueries("Subscribe")) {
      assertEquals((await driver.find(q)).map((h) => h.bounds), [byCss.bounds], q.value);
    }
    // " SUBSCRIBE " is neither the exact nor the normalised text: only the case-insensitive tier.
    const upper = await Promise.all(textQueries(" SUBSCRIBE ").map((q) => driver.find(q)));
    assertEquals(upper.map((hits) => hits.map((h) => h.bounds)), [[], [], [byCss.bounds]]);
    // Light DOM still works.
    assertEquals((await driver.find({ using: "text", value: "Newsletter" })).length, 1);
  });
});

Deno.test("runPlayback() heals to the text level on a shadow-DOM button whose test id was removed", async () => {
  await withChrome(async (driver, server, dir) => {
    const store = SqliteEventStore.open(`${dir}/cairn.db`);
    try {
      const url = server.url + "join.html";
      server.setVariant("notestid");
      const report = await runPlayback(driver, store, {
        source: { kind: "recording" },
        platform: "web",
        viewport: { width: 1280, height: 800 },
        actions: [
          { type: "navigate", url },
          { type: "click", target: { testId: "join", text: "Join now" } },
        ],
      }, { locateWaitMs: 1_000 });
      assertEquals(
        report.results.map((r) => r.status),
        ["ok", "healed"],
        JSON.stringify(report.results[1]),
      );
      assertEquals(report.results[1]!.selector_used, "text");
      assertEquals(report.results[1]!.healed_selector, "text=Join now");
      // The shadow button was clicked: not the light "Join now today" nor the shadow "Join".
      const log = await driver.page.evaluate(() =>
        (globalThis as unknown as { __log: string[] }).__log
      );
      assertEquals(log, ["shadow-join"]);
    } finally {
      store.close();
    }
  });
});
