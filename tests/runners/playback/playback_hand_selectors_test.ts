/**
 * Hand-written trail selectors (a tester's, a Maestro user's) replayed in a real Chromium on a
 * page served from 127.0.0.1: a `cssPath` naming a paragraph, every `childOf` form the trail
 * format allows, templates inside selectors, and the two ways `inputText` types.
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { planMemoryKeys } from "../../../engine/playback/actions.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import type { PlaybackReport } from "../../../engine/playback/report.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const PAGE = `<!doctype html><html lang="en"><body>
<p id="order">Order ORD-12345 placed</p>
<p id="late">Waiting</p>
<button id="inc" onclick="__log.push('inc')">Add one</button>
<ul id="list">
  <li class="row"><span>Cactus</span> <button class="add" onclick="__log.push('cactus')">Add</button></li>
  <li class="row"><span>Fern</span> <button class="add" onclick="__log.push('fern')">Add</button></li>
  <li class="row"><span>Rose</span> <button class="add" onclick="__log.push('rose')">Add</button></li>
</ul>
<div id="other"><span>Cactus</span> <button onclick="__log.push('other')">Add</button></div>
<input id="f" aria-label="Field" value="old">
<script>window.__log = [];</script>
</body></html>`;

function trail(url: string, body: string, memory = "") {
  return parseTrail(`config:
  platform: web
  url: ${url}
  viewport: { width: 1000, height: 700 }${memory}
trail:
  - step: Act
    recording:
${body}`);
}

interface Harness {
  url: string;
  driver: ChromeDriver;
  store: SqliteEventStore;
  play(body: string, options?: { memory?: string; secrets?: Record<string, string> }): Promise<
    PlaybackReport
  >;
  log(): Promise<string[]>;
}

async function withPage(fn: (h: Harness) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-hand-sel-" });
  await Deno.writeTextFile(`${dir}/page.html`, PAGE);
  const server = serveFolder(dir);
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ viewport: { width: 1000, height: 700 } });
  const url = `${server.url}page.html`;
  try {
    await fn({
      url,
      driver,
      store,
      play: (body, options = {}) => {
        const plan = trailToPlan(trail(url, body, options.memory ?? ""));
        return runPlayback(driver, store, plan, {
          overlay: false,
          locateWaitMs: 300,
          ...(options.secrets
            ? { memory: options.secrets, secrets: Object.values(options.secrets) }
            : {}),
        });
      },
      log: () => driver.page.evaluate(() => (globalThis as unknown as { __log: string[] }).__log),
    });
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a hand-written cssPath names any element: a paragraph is read and asserted, a unique match is clicked", async () => {
  await withPage(async (h) => {
    const report = await h.play(
      `      - assertText: { selector: { cssPath: "#order" }, matches: "Order ORD-\\\\d+ placed" }
      - assertVisible: { cssPath: "#late" }
      - readText: { selector: { cssPath: "ul > li:nth-child(2) > span" }, storeAs: row }
      - click: { cssPath: "li:nth-child(3) > button.add" }
`,
    );
    assertEquals(report.results.map((r) => r.status), ["ok", "ok", "ok", "ok", "ok"]);
    assertEquals(report.results.map((r) => r.selector_used).slice(1), [
      "css_path",
      "css_path",
      "css_path",
      "css_path",
    ]);
    assertEquals(report.results[3]!.value, "Fern");
    assertEquals(await h.log(), ["rose"]);
  });
});

Deno.test("a cssPath refused by the recorded identity says it matched one element, not 0", async () => {
  await withPage(async (h) => {
    // the recording says a button was clicked: a paragraph at that path is not it
    const report = await h.play(`      - click: { cssPath: "#order", role: button }
`);
    const r = report.results[1]!;
    assertEquals(r.status, "failed");
    assertStringIncludes(r.error ?? "", "#order → 1 (");
  });
});

Deno.test("every childOf form scopes the lookup; a parent that matches nothing fails naming it, and no fallback leaves the scope", async () => {
  await withPage(async (h) => {
    const report = await h.play(
      `      - click: { text: Add, childOf: { role: listitem, text: Rose } }
      - click: { text: Add, childOf: { cssPath: "li:nth-child(2)" } }
      - click: { text: Add, childOf: { className: row, index: 0 } }
      - click: { text: Add, childOf: { text: Cactus, childOf: { id: other } } }
      - click: { role: button, name: Add, childOf: { id: other } }
      - click: { text: Cactus, childOf: { cssPath: "#nonexistent" } }
      - click: { text: "Add one", childOf: { id: list } }
      - click: { text: Add, parent: { role: listitem, textRegex: "F.rn" } }
`,
    );
    assertEquals(report.results.map((r) => r.status), [
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
      "failed",
      "failed",
      "ok",
    ]);
    assertEquals(await h.log(), ["rose", "fern", "cactus", "other", "other", "fern"]);
    assertEquals(report.results[1]!.description, 'click role=listitem:has-text("Rose") >> "Add"');
    const missing = report.results[6]!;
    assertEquals(missing.error_code, "selector_not_found");
    assertStringIncludes(missing.error ?? "", "#nonexistent");
    assertStringIncludes(missing.error ?? "", "matches no element");
    // "Add one" exists, but outside #list: not found, never healed onto it
    const outside = report.results[7]!;
    assertEquals(outside.error_code, "selector_not_found");
    assertStringIncludes(outside.error ?? "", "#list >> text=Add one → 0");
    // text-only parents stay row anchors inside the scope around them: the row showing "Cactus"
    // in #list, not the other block showing it too
    const rows = await h.play(
      `      - click: { text: Add, childOf: { text: Cactus, childOf: { id: list } } }
`,
    );
    assertEquals(rows.results.map((r) => r.status), ["ok", "ok"]);
    assertEquals(rows.results[1]!.description, 'click #list >> row("Cactus") >> "Add"');
    assertEquals((await h.log()).at(-1), "cactus");
  });
});

Deno.test("a childOf that cannot scope a lookup is refused when the trail is read, naming step and field", () => {
  const read = (platform: string, body: string) => () =>
    trailToPlan(
      parseTrail(`config: { platform: ${platform} }
trail:
  - step: Go
    recording:
      - tap: { id: ok }
${body}`),
      { file: "t.yaml" },
    );
  let err: unknown;
  try {
    read("web", "      - tap: { text: Add, childOf: { xy: [3, 4] } }")();
  } catch (e) {
    err = e;
  }
  assert(err instanceof SyntaxError);
  assertEquals(
    err.message,
    "t.yaml: trail.0.recording.1.tap.selector.childOf.xy: a parent is found by its properties, not by a point: give its id, text, …",
  );
  err = undefined;
  try {
    read("android", "      - tap: { text: Add, childOf: { role: listitem, text: Rose } }")();
  } catch (e) {
    err = e;
  }
  assert(err instanceof SyntaxError);
  assertStringIncludes(err.message, "t.yaml: trail.0.recording.1.tap.selector.childOf.role: ");
  // the forms Android scopes by are kept
  const plan = read("android", "      - tap: { text: Add, childOf: { id: list } }")();
  assertEquals(plan.actions[1]!.target!.within, { id: "list" });
});

Deno.test('templates in selectors are filled from memory at play time, as in values (Maestro\'s tapOn: "${label}")', async () => {
  await withPage(async (h) => {
    const report = await h.play(
      `      - click: "\${label}"
      - click: { id: "{{btn}}" }
      - click: { text: Add, childOf: { text: "{{row}}" } }
      - click: { cssPath: "li:nth-child({{n + 1}}) > button" }
      - click: { text: "{{nope}}" }
`,
      { memory: "\n  memory: { label: Add one, btn: inc, row: Rose, n: '1' }" },
    );
    assertEquals(report.results.map((r) => r.status), ["ok", "ok", "ok", "ok", "ok", "failed"]);
    assertEquals(await h.log(), ["inc", "inc", "rose", "fern"]);
    assertStringIncludes(report.results[5]!.error ?? "", "supply --memory nope=");
  });
});

Deno.test("a secret used in a selector is typed into the lookup, never stored", async () => {
  await withPage(async (h) => {
    const report = await h.play(
      `      - click: { text: Add, childOf: { text: "{{pet}}" } }
      - assertText: { selector: { text: "{{pet}}", childOf: { id: list } }, equals: "{{pet}}" }
`,
      { memory: "\n  memory: { pet: null }", secrets: { pet: "Fern" } },
    );
    assertEquals(report.results.map((r) => r.status), ["ok", "ok", "ok"]);
    assertEquals(await h.log(), ["fern"]);
    const stored = JSON.stringify(
      await Array.fromAsync(h.store.readStream(`playback-${report.playback_id}`)),
    );
    assert(!stored.includes("Fern"), stored);
    assertStringIncludes(stored, "[redacted]");
  });
});

Deno.test("planMemoryKeys() counts the keys a selector's templates read", () => {
  const keys = planMemoryKeys({
    memory: { a: "1" },
    actions: [{
      type: "click",
      target: {
        text: "{{label}}",
        within: { id: "{{row}}", within: { texts: ["{{zone}}"] } },
        alternatives: [{ cssPath: "#x{{n + 1}}" }],
      },
    }],
  });
  assertEquals(keys, ["a", "label", "row", "zone", "n"]);
});

Deno.test("inputText into the focused field types at the caret (Maestro's inputText); with a selector it replaces the value (Playwright's fill)", async () => {
  await withPage(async (h) => {
    const value = () =>
      h.driver.page.evaluate(() => (document.getElementById("f") as HTMLInputElement).value);
    const report = await h.play(`      - click: { id: f }
      - type: "new"
      - assertText: { selector: { id: f }, equals: "oldnew" }
      - type: { selector: { id: f }, text: "yz" }
      - assertText: { selector: { id: f }, equals: "yz" }
      - type: "!"
`);
    assertEquals(report.results.map((r) => r.status), ["ok", "ok", "ok", "ok", "ok", "ok", "ok"]);
    assertEquals(report.results.map((r) => r.selector_used).slice(2), [
      "focused",
      "id",
      "id",
      "id",
      "focused",
    ]);
    assertEquals(await value(), "yz!");
  });
});

Deno.test("a className selector is a web level too: the one element with the class, or with an index the n-th", async () => {
  await withPage(async (h) => {
    const report = await h.play(`      - click: { className: add, index: 2 }
      - click: { className: add, childOf: { id: other } }
      - click: { className: row }
`);
    assertEquals(report.results.map((r) => r.status), ["ok", "ok", "failed", "failed"]);
    assertEquals(await h.log(), ["rose"]);
    assertEquals(report.results[1]!.selector_used, "class_index");
    assertStringIncludes(report.results[3]!.error ?? "", ".row → 3");
  });
});
