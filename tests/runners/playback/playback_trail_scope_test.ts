/**
 * A trail's parent-scoped, regex and indexed selectors replayed in a real Chromium on a page
 * served from 127.0.0.1: two cards repeat the same `data-testid`, so only `childOf`, `index`
 * or `textRegex` tells them apart.
 */
import { assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const PAGE = `<!doctype html><html><body>
<section data-testid="basic-card"><h2>Basic</h2>
  <button data-testid="buy" onclick="__log.push('basic')">Buy</button></section>
<section data-testid="deal-card"><h2>Deal</h2>
  <button data-testid="buy" onclick="__log.push('deal')">Buy</button></section>
<ul id="fruits"><li>Apple <button onclick="__log.push('apple')">Add</button></li>
  <li>Banana <button onclick="__log.push('banana')">Add</button></li></ul>
<div id="veg"><button onclick="__log.push('veg')">Add</button></div>
<p id="cart">Cart (<span>2</span>)</p>
<p>My Cart (9) history</p>
<script>window.__log = [];</script>
</body></html>`;

function trail(url: string, body: string) {
  return parseTrail(`config:
  platform: web
  url: ${url}
  viewport: { width: 1000, height: 700 }
trail:
  - step: Act
    recording:
${body}`);
}

Deno.test("playback in Chromium resolves childOf, index and textRegex selectors of a trail, and refuses the unscoped ambiguous one", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-trail-scope-" });
  await Deno.writeTextFile(`${dir}/cards.html`, PAGE);
  const server = serveFolder(dir);
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ viewport: { width: 1000, height: 700 } });
  try {
    const url = `${server.url}cards.html`;
    const scoped = trailToPlan(trail(
      url,
      `      - tap:
          selector: { testId: buy, childOf: { testId: deal-card } }
      - tap:
          selector: { testId: buy, index: 0 }
      - assertText:
          selector: { textRegex: "Cart \\\\(\\\\d+\\\\)" }
          matches: "Cart \\\\(\\\\d+\\\\)"
`,
    ));
    const report = await runPlayback(driver, store, { ...scoped, selectorMode: "strict" });
    assertEquals(report.results.map((r) => r.status), ["ok", "ok", "ok", "ok"]);
    assertEquals(report.results.map((r) => r.selector_used), [
      "navigate",
      "test_id",
      "test_id",
      "text",
    ]);
    assertEquals(
      await driver.page.evaluate(() => (globalThis as unknown as { __log: string[] }).__log),
      ["deal", "basic"],
    );
    const ambiguous = trailToPlan(trail(
      url,
      `      - tap:
          selector: { testId: buy }
`,
    ));
    const bad = await runPlayback(driver, store, { ...ambiguous, selectorMode: "strict" });
    assertEquals(bad.results.map((r) => r.status), ["ok", "failed"]);
    // the report says which row or parent each lookup kept to, as the player found it
    const rows = trailToPlan(trail(
      url,
      `      - tap:
          selector: { text: Add, childOf: { text: Banana } }
      - tap:
          selector: { text: Add, childOf: { id: veg } }
`,
    ));
    const played = await runPlayback(driver, store, { ...rows, selectorMode: "strict" });
    assertEquals(played.results.map((r) => r.status), ["ok", "ok", "ok"]);
    assertEquals(played.results.slice(1).map((r) => r.description), [
      'click row("Banana") >> "Add"',
      'click #veg >> "Add"',
    ]);
    assertEquals(
      report.results[1]!.description,
      'click [data-testid="deal-card"] >> [data-testid=buy]',
    );
    assertEquals(
      await driver.page.evaluate(() => (globalThis as unknown as { __log: string[] }).__log),
      ["banana", "veg"],
    );
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
