/**
 * A control found by its role alone within its row (`{ role: checkbox, childOf: { text: … } }`),
 * in real Chromium on a page served from 127.0.0.1 whose variant renames every control (copy
 * changed) and reorders the rows: the row's one checkbox or button is found in the row that
 * shows the anchor text, never in another row, and a row with two controls of the role is no
 * match. A page-side log names the element acted on.
 */
import { assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { type PlaybackOptions, runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

/** Rows of plants; `?v=copy` renames the controls, `?v=two` gives each row a second button. */
const PAGE = `<!doctype html><html><head><title>Plants</title></head><body>
<ul id="rows"></ul>
<script>
  window.__log = [];
  const v = location.search;
  const names = v.includes("copy") ? ["Watered", "Discard"] : ["Done", "Delete"];
  const plants = ["Fern", "Cactus", "Ivy"];
  if (v.includes("copy")) plants.reverse();
  for (const p of plants) {
    const li = document.createElement("li");
    li.innerHTML = '<span></span> <input type="checkbox" aria-label="' + names[0] + '"> <button>' +
      names[1] + '</button>' + (v.includes("two") ? ' <button>Move</button>' : "");
    li.querySelector("span").textContent = p;
    li.querySelector("input").addEventListener("click", () => window.__log.push("check:" + p));
    li.querySelector("button").addEventListener("click", () => window.__log.push("delete:" + p));
    document.getElementById("rows").appendChild(li);
  }
</script>
</body></html>`;

const FAST: PlaybackOptions = { locateWaitMs: 200, expectWaitMs: 400, actionTimeoutMs: 5_000 };

Deno.test("a control found by its role alone within its row: renamed and reordered rows still reach the right row's control", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-row-role-" });
  await Deno.writeTextFile(`${dir}/plants.html`, PAGE);
  const server = serveFolder(dir);
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ viewport: { width: 1000, height: 700 } });
  const play = async (query: string) => {
    const trail = parseTrail(`config:
  platform: web
  url: ${server.url}plants.html${query}
trail:
  - step: Water the cactus, delete the ivy
    recording:
      - check:
          selectors:
            - { ariaLabel: Done, childOf: { text: Cactus } }
            - { role: checkbox, childOf: { text: Cactus } }
          checked: true
      - click:
          selectors:
            - { text: Delete, childOf: { text: Ivy } }
            - { role: button, childOf: { text: Ivy } }
`);
    const report = await runPlayback(driver, store, trailToPlan(trail), FAST);
    const log = await driver.page.evaluate(() =>
      (globalThis as unknown as { __log: string[] }).__log
    );
    return { results: report.results.slice(1), log };
  };
  try {
    const plain = await play("");
    assertEquals(plain.results.map((r) => r.status), ["ok", "ok"]);
    assertEquals(plain.log, ["check:Cactus", "delete:Ivy"]);
    // every control renamed, the rows reversed: the role within the row heals both
    const copy = await play("?v=copy");
    assertEquals(copy.results.map((r) => [r.status, r.selector_used]), [
      ["healed", "role_name"],
      ["healed", "role_name"],
    ]);
    assertEquals(copy.log, ["check:Cactus", "delete:Ivy"]);
    // two buttons in every row: the role alone names neither, nothing is clicked
    const two = await play("?v=copy,two");
    assertEquals(two.results.map((r) => r.status), ["healed", "failed"]);
    assertStringIncludes(two.results[1]!.error!, 'row("Ivy") >> role=button → 0');
    assertEquals(two.log, ["check:Cactus"]);
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
