/**
 * The player heals through a trail's `selectors:` chain in real Chromium, on pages served from
 * 127.0.0.1 whose variant (`?v=…`) changes the app as a release would: the chain is followed in
 * order and the level that worked is reported; two selectors of one chain that pick different
 * elements make the action `ambiguous` (nothing clicked); a healed element must be of the kind
 * the chain names; a key press with a selector goes into its element, and one after a failed
 * action of its step is skipped; a tap on an `<option>` ref blazes a `select` that replays; a
 * Recorder `waitForElement` checks its text and count.
 */
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
} from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { type PlaybackOptions, runPlayback } from "../../../runners/playback/runner.ts";
import { BlazeSession, ToolInputError } from "../../../runners/blaze/session.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { StoredEvent } from "../../../events/schemas.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { eventsToPlan, type SessionEvent } from "../../../engine/playback/from_events.ts";
import { chromeRecorderToPlan } from "../../../engine/playback/from_chrome_recorder.ts";
import { flowToEvents, parseChromeRecorder } from "../../../engine/formats/chrome_recorder.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { formatReport } from "../../../cli/replay.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import { cairn } from "../../_fixtures/cli_run.ts";

/**
 * The shop page. Variants (comma-separated in `?v=`): `notestid` drops every data-testid,
 * `noaria` every aria-label, `swap` moves the Add button's test id onto the Remove button,
 * `buy` renames Add to Buy and shows a paragraph "Add", `noids` renames the ids.
 */
const SHOP = `<!doctype html><html><head><title>Shop</title></head><body>
<form id="login" onsubmit="log('submit:login'); return false">
  <input id="user" aria-label="User"> <button>Sign in</button>
</form>
<button data-testid="add" aria-label="Add Lamp" id="add" onclick="log('add')">Add</button>
<button data-testid="remove" aria-label="Remove Lamp" id="remove" onclick="log('remove')">Remove</button>
<p id="total">Total: $3</p>
<p id="query"></p>
<label>Size <select id="size" onchange="log('size:' + this.value)">
  <option value="s">Small</option><option value="l">Large</option>
</select></label>
<input id="note" aria-label="Note" onkeydown="if (event.key === 'Enter') log('enter:note')">
<script>
  window.__log = [];
  function log(x) { window.__log.push(x); }
  document.getElementById("query").textContent = location.search;
  const v = (new URLSearchParams(location.search).get("v") ?? "").split(",");
  const all = (sel) => [...document.querySelectorAll(sel)];
  if (v.includes("swap")) {
    document.getElementById("add").removeAttribute("data-testid");
    document.getElementById("remove").setAttribute("data-testid", "add");
  }
  if (v.includes("buy")) {
    document.getElementById("add").textContent = "Buy";
    document.getElementById("add").setAttribute("aria-label", "Buy Lamp");
    document.getElementById("total").insertAdjacentHTML("beforebegin", "<p>Add</p>");
  }
  if (v.includes("notestid")) all("[data-testid]").forEach((e) => e.removeAttribute("data-testid"));
  if (v.includes("noaria")) all("[aria-label]").forEach((e) => e.removeAttribute("aria-label"));
  if (v.includes("noids")) all("[id]").forEach((e) => { e.id = "x-" + e.id; });
</script>
</body></html>`;

interface Env {
  driver: ChromeDriver;
  store: SqliteEventStore;
  dir: string;
  url: (query?: string) => string;
}

async function withShop(fn: (env: Env) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-heal-chain-" });
  await Deno.writeTextFile(`${dir}/shop.html`, SHOP);
  const server = serveFolder(dir);
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ viewport: { width: 1000, height: 700 } });
  try {
    await fn({
      driver,
      store,
      dir,
      url: (query = "") => `${server.url}shop.html${query}`,
    });
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** What the page logged (clicks, key presses, submits), in order. */
async function pageLog(driver: ChromeDriver): Promise<string[]> {
  return await driver.page.evaluate(() => (globalThis as unknown as { __log: string[] }).__log);
}

/** A one-step trail on `url` whose recording is the YAML lines given (indented 6). */
function trail(url: string, recording: string, step = "Act"): ReturnType<typeof parseTrail> {
  return parseTrail(`config:
  platform: web
  url: ${url}
  viewport: { width: 1000, height: 700 }
trail:
  - step: ${step}
    recording:
${recording}`);
}

/** The Add button's chain as the optimizer writes it: test id, aria-label, role + name, text. */
const ADD_CHAIN = `      - tap:
          selectors:
            - { testId: add }
            - { ariaLabel: Add Lamp }
            - { role: button, name: Add Lamp }
            - { text: Add }
`;

const FAST: PlaybackOptions = { locateWaitMs: 300, expectWaitMs: 600, actionTimeoutMs: 5_000 };

Deno.test("the player heals through a chain in its order and reports the level that worked", async () => {
  await withShop(async ({ driver, store, url }) => {
    const cases: [string, string, string, number | undefined][] = [
      ["", "ok", "test_id", undefined],
      ["?v=notestid", "healed", "aria_label", 2],
      ["?v=notestid,noaria", "healed", "text", 4],
    ];
    for (const [query, status, strategy, level] of cases) {
      const report = await runPlayback(
        driver,
        store,
        trailToPlan(trail(url(query), ADD_CHAIN)),
        FAST,
      );
      const tap = report.results[1]!;
      assertEquals(
        [query, tap.status, tap.selector_used, tap.healed_level],
        [query, status, strategy, level],
      );
      assertEquals([query, await pageLog(driver)], [query, ["add"]]);
      // the levels were tried in the chain's order
      const order = ["test_id", "aria_label", "role_name", "text"];
      const upTo = order.indexOf(strategy) + 1;
      assertEquals(tap.tried!.map((t) => t.strategy).slice(0, upTo), order.slice(0, upTo));
      if (level !== undefined) {
        assertStringIncludes(formatReport(report), `level ${level}: ${tap.healed_selector}`);
      }
    }
    // as far as needed: the first selector's match is confirmed by the second, the rest not looked at
    const plain = await runPlayback(driver, store, trailToPlan(trail(url(), ADD_CHAIN)), FAST);
    assertEquals(plain.results[1]!.tried!.map((t) => [t.strategy, t.matches]), [
      ["test_id", 1],
      ["aria_label", 1],
    ]);
  });
});

Deno.test("two selectors of a chain on different elements: the action is ambiguous and nothing is clicked", async () => {
  await withShop(async ({ driver, store, url }) => {
    // the test id now names the Remove button while the aria-label still names Add
    const report = await runPlayback(
      driver,
      store,
      trailToPlan(trail(url("?v=swap"), ADD_CHAIN)),
      FAST,
    );
    const tap = report.results[1]!;
    assertEquals([tap.status, tap.error_code], ["failed", "ambiguous"]);
    assertStringIncludes(tap.error!, '[data-testid="add"]');
    assertStringIncludes(tap.error!, '[aria-label="Add Lamp"]');
    assertEquals(await pageLog(driver), []);
    assertEquals(report.status, "failed");
    assertStringIncludes(formatReport(report), 'ambiguous: [data-testid="add"] and [aria-label');
    // strict mode tries the primary selector alone: it has nothing to compare with
    const strict = trail(url("?v=swap"), ADD_CHAIN);
    strict.config.selectorMode = "strict";
    const s = await runPlayback(driver, store, trailToPlan(strict), FAST);
    assertEquals(s.results[1]!.status, "ok");
    assertEquals(await pageLog(driver), ["remove"]);
  });
});

Deno.test("a healed element must be of the kind the chain names: a text fallback never lands on a paragraph", async () => {
  await withShop(async ({ driver, store, url }) => {
    // the button is now "Buy" and a paragraph says "Add": only the text selector still matches
    const report = await runPlayback(
      driver,
      store,
      trailToPlan(trail(url("?v=notestid,buy"), ADD_CHAIN)),
      FAST,
    );
    const tap = report.results[1]!;
    assertEquals([tap.status, tap.error_code], ["failed", "selector_not_found"]);
    assertStringIncludes(tap.error!, "text=Add → 1 (the element is a paragraph");
    assertEquals(await pageLog(driver), []);
  });
});

Deno.test("a key press with a selector goes into its element; one after a failed action of its step is skipped", async () => {
  await withShop(async ({ driver, store, url }) => {
    // the login field has the focus; the Enter was recorded in the note field
    const targeted = `      - tap:
          selectors: [{ id: user }, { ariaLabel: User }]
      - keyPress:
          key: Enter
          selectors:
            - { id: note }
            - { ariaLabel: Note }
`;
    for (const query of ["", "?v=noids"]) {
      const report = await runPlayback(
        driver,
        store,
        trailToPlan(trail(url(query), targeted)),
        FAST,
      );
      const press = report.results[2]!;
      assertEquals(
        [query, press.status, press.selector_used],
        [query, query ? "healed" : "ok", query ? "aria_label" : "id"],
      );
      assertEquals([query, await pageLog(driver)], [query, ["enter:note"]]);
      assertEquals(press.description, "key_press Enter into #note");
    }
    // the tap meant to move the focus fails: its Enter would submit the login form
    const dependent = `      - tap:
          selector: { id: user }
      - tap:
          selector: { id: shipping-express }
      - keyPress: Enter
`;
    const report = await runPlayback(
      driver,
      store,
      trailToPlan(trail(url(), dependent)),
      FAST,
    );
    assertEquals(report.results.slice(1).map((r) => [r.status, r.error_code ?? ""]), [
      ["ok", ""],
      ["failed", "selector_not_found"],
      ["skipped", "skipped_dependency"],
    ]);
    assertStringIncludes(report.results[3]!.error!, "of the same step did not run");
    assertEquals(await pageLog(driver), []);
  });
});

Deno.test("blaze: a tap on an <option> ref selects it, and the session replays the select", async () => {
  await withShop(async ({ driver, store, url }) => {
    const s = await BlazeSession.start(driver, store, { url: url(), prompt: "Pick a size" });
    await s.call("step", { text: "Pick Large" });
    const snap = (await s.call("snapshot", { offscreen: true })).output;
    const large = refIn(snap, "Large");
    const picked = await s.call("tap", { ref: large });
    assert(picked.ok, picked.output);
    assertStringIncludes(picked.output, 'Selected "Large"');
    assertEquals(await pageLog(driver), ["size:l"]);
    // a type without its text is one clear line, not a schema dump
    const field = refIn((await s.call("snapshot", {})).output, "Note");
    const err = await assertRejects(() => s.call("type", { ref: field }), ToolInputError);
    assertStringIncludes(err.message, 'text: missing: the text to type, e.g. text="');
    assert(!err.message.includes("\n"), err.message);
    await s.call("end", { reason: "completed" });
    const events: StoredEvent[] = [];
    for await (const e of store.readStream(s.streamId)) events.push(e);
    const acted = events.filter((e) => e.type === "ActionPerformed").map((e) => e.data);
    assertEquals(acted.map((a) => [a.kind, a.value]), [["select", "Large"]]);
    // replayed on a fresh page: the option is picked again
    await driver.navigate("about:blank");
    const report = await runPlayback(
      driver,
      store,
      eventsToPlan(events as SessionEvent[]),
      FAST,
    );
    assertEquals(report.status, "completed");
    assertEquals(report.results.map((r) => [r.action, r.status]), [
      ["navigate", "ok"],
      ["select", "ok"],
    ]);
    assertEquals(await pageLog(driver), ["size:l"]);
  });
});

Deno.test("a Recorder waitForElement checks its text property and count: the wrong text fails", async () => {
  await withShop(async ({ driver, store, url }) => {
    const flow = (text: string, extra: Record<string, unknown> = {}) =>
      parseChromeRecorder({
        title: "Total",
        steps: [
          { type: "navigate", url: url() },
          {
            type: "waitForElement",
            selectors: [["#total"], ["text/Total"]],
            properties: { textContent: text },
            ...extra,
          },
        ],
      })[0]!.flow;
    const right = await runPlayback(driver, store, chromeRecorderToPlan(flow("Total: $3")), FAST);
    assertEquals(right.results.map((r) => r.status), ["ok", "ok"]);
    const wrong = await runPlayback(driver, store, chromeRecorderToPlan(flow("Total: $5")), FAST);
    const check = wrong.results[1]!;
    assertEquals([check.action, check.status, check.error_code], [
      "assert_text",
      "failed",
      "assertion_failed",
    ]);
    assertStringIncludes(check.error!, 'found "Total: $3"');
    // a count: two buttons besides the form's are three in all
    const counted = (count: number) =>
      chromeRecorderToPlan(
        parseChromeRecorder({
          steps: [
            { type: "navigate", url: url() },
            { type: "waitForElement", selectors: [["button"]], count, operator: "==" },
          ],
        })[0]!.flow,
      );
    const three = await runPlayback(driver, store, counted(3), FAST);
    assertEquals(three.results[1]!.status, "ok");
    const four = await runPlayback(driver, store, counted(4), FAST);
    assertEquals([four.results[1]!.status, four.results[1]!.error_code], [
      "failed",
      "assertion_failed",
    ]);
    assertStringIncludes(four.results[1]!.error!, "Expected == 4 visible elements");
    // an expectation Cairn cannot check is skipped, naming it, never passed as visible
    const attrs = await runPlayback(
      driver,
      store,
      chromeRecorderToPlan(flow("Total: $3", { attributes: { title: "x" } })),
      FAST,
    );
    assertEquals([attrs.results[1]!.status, attrs.results[1]!.error_code], [
      "skipped",
      "unsupported_action_type",
    ]);
    assertStringIncludes(attrs.results[1]!.error!, "attributes.title");
    // imported as a session, the text property is an assertText of it
    const events = flowToEvents(flow("Total: $5"), { sessionId: "s1" });
    const wait = events.find((e) =>
      e.type === "ActionPerformed" && e.data.toolName === "waitForElement"
    );
    assertEquals(
      wait?.type === "ActionPerformed" ? [wait.data.kind, wait.data.expected] : [],
      ["assertText", "Total: $5"],
    );
  });
});

Deno.test("cairn replay --url with a query opens that url whole and the table shows it", async () => {
  await withShop(async ({ dir, url }) => {
    const file = `${dir}/query.trail.yaml`;
    await Deno.writeTextFile(
      file,
      `config:
  platform: web
  url: ${url("?v=0")}
trail:
  - step: Check the query
    recording:
      - assertText:
          selector: { id: query }
          equals: "?v=3&lang=fr"
`,
    );
    const wanted = url("?v=3&lang=fr");
    const out = await cairn(["replay", file, "--url", wanted, "--db", `${dir}/cli.db`]);
    assertEquals(out.code, 0, out.stdout + out.stderr);
    assertStringIncludes(out.stdout, `navigate ${wanted}`);
    const help = await cairn(["blaze", "--help"]);
    assertStringIncludes(help.stdout, "select ref=");
    assertStringIncludes(help.stdout, "check ref=");
  });
});
