/**
 * The long list of the optimizer bench (`tests/_fixtures/long_list_capture.ts`): its built hierarchy has the
 * shape of a real Chromium capture of `plants.html`, heuristics v2 anchors every click to the
 * row it was in where v1 counts identical buttons, and the v2 trail replays in Chromium on the
 * rows the session clicked.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { optimize } from "../../../engine/optimizer/optimize.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import type { Selector, TrailAction } from "../../../engine/trail/trail.ts";
import {
  LONG_LIST_PAGE,
  longListHierarchy,
  makeLongListCapture,
  plantName,
} from "../../_fixtures/long_list_capture.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

/** What a hierarchy says of each node, without ids, states and layout. */
function shape(h: unknown): unknown[] {
  const nodes = (h as { nodes: Record<string, unknown>[] }).nodes;
  return nodes.map((n) => ({
    role: n.role,
    name: n.role === "RootWebArea" ? undefined : n.name,
    tag: n.tag,
    cssPath: n.cssPath,
    dom: n.dom,
    level: n.level,
    children: n.children,
  }));
}

function firstSelector(a: TrailAction): Selector {
  return (a.selector ?? a.selectors?.[0])!;
}

Deno.test("longListHierarchy() has the shape of Chromium's capture of plants.html", async () => {
  const server = serveFolder();
  const driver = await ChromeDriver.launch({ viewport: { width: 1280, height: 800 } });
  try {
    await driver.navigate(`${server.url}${LONG_LIST_PAGE}?rows=6`);
    const [add] = await driver.find({
      using: "css",
      value: "#list > li:nth-of-type(2) > button:nth-of-type(1)",
    });
    assert(add);
    await driver.tap({ x: add.bounds.x + 5, y: add.bounds.y + 5 });
    await driver.waitForSettle({ quietMs: 100 });
    const snap = await driver.snapshot();
    const real = JSON.parse(new TextDecoder().decode(snap.raw.bytes));
    assertEquals(shape(real), shape(longListHierarchy([0, 1, 0, 0, 0, 0], 0)));
    assertEquals(real.nodes[12].name, "Silver Fern");
  } finally {
    await driver.close();
    await server.close();
  }
});

Deno.test("optimize() anchors long-list clicks to their rows under v2 and picks them by position under v1", () => {
  const cap = makeLongListCapture({ rows: 120, actions: 16, seed: 7 });
  const clicks = (heuristics: string) =>
    optimize(cap.events, cap.screens, { heuristics }).trail.trail.flatMap((s) => s.recording ?? []);
  const v2 = clicks("v2");
  assertEquals(v2.length, 16);
  v2.forEach((a, i) => {
    const sel = firstSelector(a);
    assertEquals(sel.childOf, { text: plantName(cap.rows[i]!) }, `click ${i}`);
    assert(sel.text === "Add" || sel.text === "Remove", `click ${i}: ${JSON.stringify(sel)}`);
    assertEquals(sel.index, undefined);
  });
  const v1 = clicks("v1");
  assertEquals(v1.length, 16);
  assert(v1.every((a) => firstSelector(a).childOf === undefined));
  // by position: the n-th identical button (up to 20), else the row's CSS path
  v1.forEach((a, i) => {
    const sel = firstSelector(a);
    const nth = `#list > li:nth-of-type(${cap.rows[i]! + 1}) > button`;
    assert(sel.index !== undefined || sel.cssPath?.startsWith(nth), JSON.stringify(sel));
  });
});

Deno.test("a v2 long-list trail replays in Chromium on the rows the session clicked", async () => {
  const rows = 120;
  const cap = makeLongListCapture({ rows, actions: 12, seed: 11 });
  const { trail } = optimize(cap.events, cap.screens, { heuristics: "v2" });
  const dir = await Deno.makeTempDir({ prefix: "cairn-long-list-" });
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ viewport: { width: 1280, height: 800 } });
  try {
    const url = `${server.url}${LONG_LIST_PAGE}?rows=${rows}`;
    const report = await runPlayback(
      driver,
      store,
      trailToPlan({ ...trail, config: { ...trail.config, url } }),
    );
    const bad = report.results.filter((r) => r.status !== "ok");
    assertEquals(bad, []);
    // each row's count is what the session's clicks left it at
    const want = new Array(rows).fill(0);
    trail.trail.flatMap((s) => s.recording ?? []).forEach((a, i) => {
      want[cap.rows[i]!] += firstSelector(a).text === "Add" ? 1 : -1;
    });
    const counts = await driver.page.$$eval(
      "#list .count",
      (els) => els.map((e) => Number(e.textContent)),
    );
    assertEquals(counts, want);
  } finally {
    await driver.close();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
