/**
 * An assertion of a value the trail typed itself, held out from the benchmark's apps: a guest
 * list written for this test is blazed in real Chromium (a name typed, Enter, the new row's name
 * asserted — a `<span>` with no id, test id or label), the session is optimized (heuristics v3)
 * and the trail replayed on a variant whose rows moved (a banner above the list): the assertion
 * finds the row's name by the template of the typed value (`text: "{{…}}"`), never by the
 * recorded point alone, and a page-side log confirms the element read.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { projectSessionTrail } from "../../../engine/optimizer/trail_projection.ts";
import type { Selector, TrailAction } from "../../../engine/trail/trail.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Guests</title>
<style>li { display: flex; width: 500px; } li .who { flex: 1; } .banner { height: 160px; }</style>
</head><body>
<h1>Guests</h1>
<input aria-label="Guest name" placeholder="Guest name">
<ul></ul>
<script>
  if (location.search.includes("banner")) {
    document.querySelector("ul").insertAdjacentHTML("beforebegin", '<div class="banner">Sale</div>');
  }
  const input = document.querySelector("input");
  input.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || !input.value.trim()) return;
    const li = document.createElement("li");
    li.innerHTML = '<span class="who"></span><small>invited</small><button type="button">Remove</button>';
    li.querySelector(".who").textContent = input.value.trim();
    document.querySelector("ul").appendChild(li);
    input.value = "";
  });
</script>
</body></html>
`;

function chainOf(a: TrailAction): Selector[] {
  return a.selectors ?? (a.selector ? [a.selector] : []);
}

Deno.test("an assertion of a typed value is found by its template, not by a point, and replays when the rows move", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-typed-assert-" });
  await Deno.writeTextFile(`${dir}/guests.html`, PAGE);
  const server = serveFolder(dir);
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ viewport: { width: 1280, height: 800 } });
  try {
    const s = await BlazeSession.start(driver, store, {
      url: `${server.url}guests.html`,
      prompt: "Invite Rosa Diaz",
      screenshots: false,
      settleMs: 50,
    });
    const snap = async () => (await s.call("snapshot", {})).output;
    const must = async (tool: string, params: Record<string, unknown>) => {
      const r = await s.call(tool, params);
      assert(r.ok, `${tool} ${JSON.stringify(params)}: ${r.error}`);
    };
    await s.call("step", { text: "Invite Rosa Diaz" });
    await must("type", { ref: refIn(await snap(), "Guest name"), text: "Rosa Diaz" });
    await must("press", { key: "Enter" });
    await s.call("step", { text: "Check the guest is listed" });
    await must("assert", { ref: refIn(await snap(), "Rosa Diaz"), text: "Rosa Diaz" });
    await s.end("completed");

    const p = await projectSessionTrail(store, s.id, { heuristics: "v3" });
    const check = p.trail.trail.find((x) => x.step === "Check the guest is listed")?.recording;
    assert(check, JSON.stringify(p.warnings));
    const assertion = check.find((a) => a.kind === "assertText")!;
    assert(assertion, JSON.stringify(check));
    const chain = chainOf(assertion);
    // the typed value's template first, the point only after it
    assert(/^\{\{\w+\}\}$/.test(chain[0]?.text ?? ""), JSON.stringify(chain));
    assertEquals(assertion.equals, chain[0]!.text);
    assert(chain.slice(1).every((c) => c.xy !== undefined), JSON.stringify(chain));

    // replayed where a banner moved the rows down: the recorded point is off the row now
    const trail = {
      ...p.trail,
      config: { ...p.trail.config, url: `${server.url}guests.html?banner` },
    };
    const report = await runPlayback(driver, store, trailToPlan(trail), {
      locateWaitMs: 300,
      expectWaitMs: 800,
    });
    const statuses = report.results.map((r) => r.status);
    assert(statuses.every((x) => x === "ok"), JSON.stringify(report.results));
    const read = report.results.find((r) => r.action === "assert_text")!;
    assertEquals(read.selector_used, "text");
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
