/**
 * Row-anchored web lookups (a trail's text-only `childOf`, `within.texts` of a target) in a real
 * Chromium on pages served from 127.0.0.1: the Chrome driver evaluates them from their parts
 * (`anchoredPiercingInPage`) and must find exactly the elements their XPath finds
 * (`xpathPiercingInPage`), on rows with duplicate names, two controls in one row, nested
 * groups, case and whitespace variants and shadow DOM; and on a 500-row list it must be far
 * faster than the XPath and click the row's control.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import {
  anchoredPiercingInPage,
  xpathPiercingInPage,
} from "../../../drivers/chrome/_page_functions.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { type LookupQuery, webCascade } from "../../../engine/playback/cascade.ts";
import type { Target } from "../../../engine/playback/actions.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const ROWS = `<!doctype html><html><body>
<h1>Fruit</h1>
<ul>
  <li><span>Apple</span><button data-testid="add" aria-label="Add one" id="a1">Add</button></li>
  <li><span>Banana</span><button data-testid="add" aria-label="Add one" id="a2">Add</button>
    <button>Remove</button></li>
  <li><span>Basil</span><button data-testid="add">Add</button></li>
  <li><span>Basil</span><button data-testid="add">Add</button></li>
  <li><span>  cherry
    </span><button>add</button></li>
  <li><span>Date</span><button>Add</button><button>Add</button></li>
  <li><button>Elder</button></li>
  <li><span>Fig</span><b>Price 3 EUR</b></li>
  <li><span>Grape</span><b>Price 12 EUR</b><b>Price 4 EUR</b></li>
</ul>
<section><h2>Office Supplies</h2><ul>
  <li><span>Premium Cable</span><button>View</button></li>
  <li><span>Stapler</span><button>View</button></li></ul></section>
<section><h2>Accessories</h2><ul>
  <li><span>Premium Cable</span><button>View</button></li>
  <li><span>Premium Cable</span><button>View</button></li></ul></section>
<button>Add</button>
<shop-rows></shop-rows>
<script>
  const host = document.querySelector("shop-rows");
  host.attachShadow({ mode: "open" }).innerHTML =
    "<ul><li><span>Kiwi</span><button>Add</button></li>" +
    "<li><span>Lime</span><button>Add</button></li><li><span>Apple</span><button>Add</button></li></ul>";
</script>
</body></html>`;

/** Targets with their row anchors (innermost first), and how many elements the XPath finds. */
const CASES: [Target, number][] = [
  [{ text: "Add", within: { texts: ["Banana"] } }, 1],
  [{ text: "Add", within: { texts: ["banana"] } }, 1],
  [{ text: "Add", within: { texts: ["Apple"] } }, 2], // the page's row and the shadow root's
  [{ text: "Add", within: { texts: ["Basil"] } }, 2],
  [{ text: "Add", within: { texts: ["Cherry"] } }, 0], // exact tier: "add" is no "Add"
  [{ text: "Add", within: { texts: ["Date"] } }, 0],
  [{ text: "Add", within: { texts: ["Kiwi"] } }, 1],
  [{ text: "Add", within: { texts: ["Fruit"] } }, 0],
  [{ text: "Add", within: { texts: ["Nothing"] } }, 0],
  [{ text: "Elder", within: { texts: ["Elder"] } }, 1],
  [{ testId: "add", ariaLabel: "Add one", id: "a2", within: { texts: ["Banana"] } }, 1],
  [{ testId: "add", within: { texts: ["Basil"] } }, 2],
  [{ textRegex: "Price \\d+ EUR", within: { texts: ["Fig"] } }, 1],
  [{ textRegex: "Price \\d+ EUR", within: { texts: ["Grape"] } }, 0],
  [{ text: "View", within: { texts: ["Premium Cable", "Office Supplies"] } }, 1],
  [{ text: "View", within: { texts: ["Premium Cable", "Accessories"] } }, 0],
  [{ text: "View", within: { texts: ["Stapler", "Office Supplies"] } }, 1],
  [{ text: "View", within: { texts: ["Premium Cable"] } }, 3],
];

/** In the page: the XPath's elements and the parts' elements, as counts and identity. */
function compareInPage(q: LookupQuery): string {
  return `(() => {
    const slow = (${xpathPiercingInPage.toString()})(document, ${JSON.stringify(q.value)});
    const fast = (${anchoredPiercingInPage.toString()})(document, ${
    JSON.stringify(JSON.stringify(q.anchored))
  });
    return [slow.length, fast.length, slow.length === fast.length && slow.every((e, i) => e === fast[i])];
  })()`;
}

Deno.test("ChromeDriver finds a row-anchored lookup from its parts: the same elements as its XPath", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-row-anchor-" });
  await Deno.writeTextFile(`${dir}/rows.html`, ROWS);
  const server = serveFolder(dir);
  const driver = await ChromeDriver.launch({ viewport: { width: 1000, height: 700 } });
  try {
    await driver.navigate(`${server.url}rows.html`);
    let compared = 0;
    for (const [target, want] of CASES) {
      const queries = webCascade(target, "flexible").flatMap((l) => l.queries);
      const anchored = queries.filter((q) => q.anchored);
      assert(anchored.length > 0, JSON.stringify(target));
      for (const q of anchored) {
        const [slow, fast, same] = await driver.page.evaluate(compareInPage(q)) as [
          number,
          number,
          boolean,
        ];
        assert(same, `${JSON.stringify(target)} ${q.value}: XPath ${slow}, parts ${fast}`);
        compared++;
      }
      // the first lookup (strictest tier) as the driver answers it
      const found = await driver.find(anchored[0]!);
      assertEquals(found.length, want, `${JSON.stringify(target)}: ${anchored[0]!.value}`);
    }
    assertEquals(compared, 48); // every tier of every level of the 18 targets
  } finally {
    await driver.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("playback clicks a row-anchored Add on a 500-row list far faster than its XPath finds it, in the right row", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-row-anchor-" });
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ viewport: { width: 1280, height: 800 } });
  try {
    await driver.navigate(`${server.url}plants.html`);
    const q = webCascade({ text: "Add", within: { texts: ["Wild Clover"] } })[0]!.queries[0]!;
    // Same run, same load: the XPath once, the parts as the driver runs them.
    let t = performance.now();
    const [slow] = await driver.page.evaluate(compareInPage(q)) as [number];
    const both = performance.now() - t;
    t = performance.now();
    const fast = await driver.find(q);
    const parts = performance.now() - t;
    assertEquals([slow, fast.length], [1, 1]);
    assert(parts * 5 < both, `parts ${parts.toFixed(0)} ms, XPath + parts ${both.toFixed(0)} ms`);

    const report = await runPlayback(
      driver,
      store,
      trailToPlan(parseTrail(`config:
  platform: web
trail:
  - step: Add two Wild Clover and one Golden Fern
    recording:
      - tap: { text: Add, childOf: { text: Wild Clover } }
      - tap: { text: Add, childOf: { text: Wild Clover } }
      - tap: { text: Add, childOf: { text: Golden Fern } }
`)),
    );
    assertEquals(report.results.map((r) => r.status), ["ok", "ok", "ok"]);
    const counts = await driver.page.$$eval(
      "#list .count",
      (els) => els.map((e, i) => [i, Number(e.textContent)]).filter(([, n]) => n !== 0),
    );
    assertEquals(counts, [[0, 1], [499, 2]]);
  } finally {
    await driver.close();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
