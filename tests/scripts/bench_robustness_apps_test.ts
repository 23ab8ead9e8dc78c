/**
 * The robustness benchmark of optimized trails, in a short bounded form: its scoring (pure),
 * the agent's ref lookup, the mutation function on a real page, and one app blazed through the
 * CLI, optimized (adaptive) and replayed on two variants beside deliberately wrong trails, which
 * must be scored wrong-element. The optimizer's success rate is the benchmark's to report, not
 * this test's to assert.
 */
import { parse, stringify } from "yaml";
import { ChromeDriver } from "../../drivers/chrome/chrome_driver.ts";
import {
  APPS,
  findRef,
  type FlowStep,
  markdown,
  parseSnapshot,
  runBenchmark,
  scoreRun,
  serveApps,
} from "../../scripts/bench_robustness_apps.ts";

function assert(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Error(msg);
}
function assertEquals(actual: unknown, expected: unknown, msg = "") {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${msg} expected ${e}, got ${a}`);
}

const FLOW: FlowStep[] = [
  { tool: "type", ident: "field", text: "x" },
  { tool: "press", ident: "field", key: "Enter" },
  { tool: "tap", ident: "go" },
  { tool: "read", ident: "total", expect: "$5.00" },
  { tool: "assert", ident: "status", expect: "Done" },
];

Deno.test("scoreRun: the element hit decides; a lost action is a miss; reads are judged by value", () => {
  const right = scoreRun(FLOW, [
    { kind: "nav", acted: true, entries: [] },
    { kind: "type", acted: true, entries: ["click:field", "input:field"] },
    { kind: "press", acted: true, entries: ["keydown:field", "click:go"] },
    { kind: "tap", acted: true, entries: ["click:go"] },
    { kind: "read", acted: true, entries: [], value: "$5.00" },
    { kind: "assert", acted: true, entries: [] },
  ]);
  assertEquals(right.verdicts, ["ok", "ok", "ok", "ok", "ok"]);
  // a tap on another element, and a read of another element's value while all before was right
  const wrong = scoreRun(FLOW, [
    { kind: "type", acted: true, entries: ["input:field"] },
    { kind: "press", acted: true, entries: ["keydown:field"] },
    { kind: "tap", acted: true, entries: ["click:?body"] },
    { kind: "read", acted: true, entries: [], value: "$9.00" },
    { kind: "assert", acted: false, entries: [], mismatch: true },
  ]);
  assertEquals(wrong.verdicts, ["ok", "ok", "wrong", "miss", "miss"], "after a wrong action:");
  assertEquals([wrong.ok, wrong.miss, wrong.wrong], [2, 2, 1]);
  const misread = scoreRun(FLOW, [
    { kind: "type", acted: true, entries: ["input:field"] },
    { kind: "press", acted: true, entries: ["keydown:field"] },
    { kind: "tap", acted: true, entries: ["click:go"] },
    { kind: "read", acted: true, entries: [], value: "$9.00" },
    { kind: "assert", acted: false, entries: [], mismatch: true },
  ]);
  assertEquals(misread.verdicts, ["ok", "ok", "ok", "wrong", "miss"]);
  // the trail lost the key press (a page-level key folded away) and the tap failed to locate
  const lost = scoreRun(FLOW, [
    { kind: "type", acted: true, entries: ["input:field"] },
    { kind: "tap", acted: false, entries: [] },
    { kind: "read", acted: true, entries: [], value: "$5.00" },
  ]);
  assertEquals(lost.verdicts, ["ok", "miss", "miss", "ok", "miss"]);
  // typing into the right field that timed out is a miss, not a wrong element
  const slow = scoreRun(FLOW.slice(0, 1), [{
    kind: "type",
    acted: false,
    entries: ["input:field"],
  }]);
  assertEquals(slow.verdicts, ["miss"]);
});

Deno.test("findRef: the control named in the row that shows the text, as an agent picks it", () => {
  const snap = [
    "- table [ref=t1]:",
    "  - rowgroup [ref=g1]:",
    "    - row [ref=r1]:",
    '      - cell "Ann Lee" [ref=c1]',
    '      - cell "Admin" [ref=c2]:',
    '        - combobox "Role" [ref=ann]: Admin',
    "    - row [ref=r2]:",
    '      - cell "Bob Stone" [ref=c3]',
    '      - cell "Viewer" [ref=c4]:',
    '        - combobox "Role" [ref=bob]: Viewer',
    '- button "Save" [ref=s1]',
  ].join("\n");
  const lines = parseSnapshot(snap);
  assertEquals(findRef(lines, { role: "combobox", name: "Role", within: "Bob Stone" }), "bob");
  assertEquals(findRef(lines, { role: "combobox", name: "Role", within: "Ann Lee" }), "ann");
  assertEquals(findRef(lines, { role: "button", name: "Save" }), "s1");
  assertEquals(findRef(lines, { role: "combobox", name: "Role", within: "Cat Moss" }), undefined);
});

Deno.test("the mutation function changes every app the same way, and the page logs identities", async () => {
  const flags = "notestid,ids,classes,copy,banner";
  const server = serveApps([flags]);
  const driver = await ChromeDriver.launch({ viewport: { width: 1000, height: 700 } });
  try {
    for (const app of APPS) {
      await driver.navigate(server.origin(flags) + app.file);
      const facts = await driver.page.evaluate(() => ({
        testIds: document.querySelectorAll("[data-testid]").length,
        ids: Array.from(document.querySelectorAll("[id]")).map((e) => e.id),
        banner: document.querySelector("[data-bench-banner]") !== null,
        text: document.body.innerText,
      }));
      assertEquals(facts.testIds, 0, `${app.name}: test ids left:`);
      assert(facts.ids.length > 0 && facts.ids.every((id) => /^r[0-9a-z]+-/.test(id)), app.name);
      assert(facts.banner, `${app.name}: no banner`);
      assert(!/\b(Sign in|Save|Delete|Profile)\b/.test(facts.text), `${app.name}: copy kept`);
    }
    // a click on the banner is logged with its identity (sessionStorage, across page loads)
    await driver.page.click("[data-ident=banner-dismiss]");
    const log = await driver.page.evaluate(() =>
      (globalThis as unknown as { __drainActed: () => string[] }).__drainActed()
    );
    assert(log.includes("click:banner-dismiss"), `log: ${JSON.stringify(log)}`);
  } finally {
    await driver.close();
    await server.close();
  }
});

Deno.test("the mutation function reaches into an open shadow root, and the page logs the identities inside it", async () => {
  const flags = "ids,classes";
  const server = serveApps([flags]);
  const driver = await ChromeDriver.launch({ viewport: { width: 1000, height: 700 } });
  try {
    // the clinic's details view holds a web component (an insurer select, a consent checkbox)
    await driver.navigate(server.origin(flags) + "clinic.html?view=details");
    await driver.page.waitForSelector("pierce/[data-ident=consent]");
    const ids = [
      await driver.page.$eval("pierce/[data-ident=insurer]", (e) => e.id),
      await driver.page.$eval("pierce/[data-ident=consent]", (e) => e.id),
    ];
    assert(ids.length === 2 && ids.every((id) => /^r[0-9a-z]+-/.test(id)), JSON.stringify(ids));
    await driver.page.click("pierce/[data-ident=consent]");
    await driver.page.select("pierce/[data-ident=insurer]", "tk");
    const log = await driver.page.evaluate(() =>
      (globalThis as unknown as { __drainActed: () => string[] }).__drainActed()
    );
    // a click leaves the shadow root (composed), a change does not: each logged once
    for (const entry of ["click:consent", "change:consent", "change:insurer"]) {
      assertEquals(log.filter((e) => e === entry).length, 1, `${entry} in ${JSON.stringify(log)}`);
    }
  } finally {
    await driver.close();
    await server.close();
  }
});

/** The adaptive trail with one action's whole target replaced. */
function retarget(yaml: string, holds: string, kind: string, target: Record<string, string>) {
  const doc = parse(yaml) as { trail: { recording?: Record<string, unknown>[] }[] };
  let done = false;
  for (const step of doc.trail) {
    for (const action of step.recording ?? []) {
      const body = action[kind] as Record<string, unknown> | undefined;
      if (done || !body || !JSON.stringify(body).includes(holds)) continue;
      if (kind === "click") action[kind] = target;
      else {
        // the wrong selector alone: with the chain kept, the player would see its entries name
        // another element and refuse the action (ambiguous) instead of reading the wrong one
        const { selectors: _chain, selector: _first, ...rest } = body;
        action[kind] = { ...rest, selector: target };
      }
      done = true;
    }
  }
  assert(done, `no ${kind} holding ${holds} in:\n${yaml}`);
  return stringify(doc);
}

Deno.test({
  name:
    "bench (short form): tasks blazed through the CLI, adaptive on two variants; wrong trails scored wrong-element",
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    const result = await runBenchmark({
      apps: ["tasks"],
      variants: ["unchanged", "test ids removed"],
      modes: ["adaptive"],
      noRecorder: true,
      addTrails: (_app, trails) => ({
        "wrong tap": retarget(trails.adaptive!, "filter-open", "click", { text: "All" }),
        "wrong read": retarget(trails.adaptive!, "items-left", "readText", { text: "1 urgent" }),
      }),
    });
    const flow = APPS.find((a) => a.name === "tasks")!.flow;
    const at = (ident: string) => flow.findIndex((s) => s.ident === ident);
    const row = (engine: string, variant: string) =>
      result.rows.find((r) => r.engine === engine && r.variant === variant)!;
    for (const variant of ["unchanged", "test ids removed"]) {
      for (const engine of ["Cairn adaptive", "wrong tap", "wrong read"]) {
        const r = row(engine, variant);
        assert(r, `no row ${engine} / ${variant}`);
        assertEquals(r.tally.verdicts.length, flow.length, `${engine} / ${variant} scored:`);
        assertEquals(r.tally.ok + r.tally.miss + r.tally.wrong, flow.length);
      }
    }
    const base = row("Cairn adaptive", "unchanged").tally;
    // the two actions the wrong trails change are played right by the flow's own trail on the
    // app it was blazed on (else the comparison below proves nothing)
    assertEquals(base.verdicts[at("filter-open")], "ok");
    assertEquals(base.verdicts[at("items-left")], "ok");
    const tap = row("wrong tap", "unchanged").tally;
    assertEquals(tap.verdicts[at("filter-open")], "wrong", "the tap on All instead of Open:");
    const read = row("wrong read", "unchanged").tally;
    assertEquals(read.verdicts[at("items-left")], "wrong", "the read of the urgent count:");
    assertEquals(
      read.verdicts.slice(0, at("items-left")),
      base.verdicts.slice(0, at("items-left")),
    );
    assert(result.trails.tasks?.adaptive?.includes("trail:"), "the adaptive trail is kept");
    const table = markdown(result);
    assert(
      table.includes("| tasks | wrong tap |") && table.includes("| Cairn adaptive |"),
      `the markdown names every engine:\n${table}`,
    );
  },
});
