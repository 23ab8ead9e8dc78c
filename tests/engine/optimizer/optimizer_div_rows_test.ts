/**
 * Rows made of plain `<div>`s and `<span>`s (`<div class=row><span>Banana</span><button>Add
 * </button></div>`): Chrome's accessibility tree drops the row's div and span, so the row's name
 * and its "Add" are siblings under the list there, and only the button's CSS path still names
 * the row. Heuristics v2 anchors the click to the row anyway (`childOf: { text: Banana }`), and
 * the trail replays on the same page with its rows reordered, where an index would hit another
 * row. Real Chromium on a 127.0.0.1 page, a real blaze session in a real SQLite log.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { projectSessionTrail } from "../../../engine/optimizer/trail_projection.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import type { Selector, Trail } from "../../../engine/trail/trail.ts";
import { parseChromeHierarchy } from "../../../engine/screens/chrome_hierarchy.ts";
import { ScreenTable } from "../../../engine/screens/screen_table.ts";
import { rankSelectors } from "../../../engine/optimizer/selectors.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const PAGE = "fruit_rows.html";

/** Blazes a click on the "Add" of the row `fruit` (the button after its name). */
async function blaze(db: string, url: string, fruit: string): Promise<string> {
  const store = SqliteEventStore.open(db);
  const driver = await ChromeDriver.launch({ viewport: { width: 1280, height: 800 } });
  try {
    const s = await BlazeSession.start(driver, store, { url, prompt: `Add a ${fruit}` });
    const lines = (await s.call("snapshot", {})).output.split("\n");
    const at = lines.findIndex((l) => l.includes(JSON.stringify(fruit)));
    assert(at >= 0, lines.join("\n"));
    const button = lines.slice(at).find((l) => l.includes("button") && l.includes('"Add"'));
    const tap = await s.call("tap", { ref: refIn(button ?? "", "Add"), step: `Add a ${fruit}` });
    assert(tap.ok, tap.error);
    await s.call("end", {});
    return s.id;
  } finally {
    await driver.close();
    store.close();
  }
}

function clickOf(trail: Trail): Selector[] {
  const a = trail.trail.flatMap((s) => s.recording ?? []).find((x) => x.kind === "tap")!;
  assert(a !== undefined, JSON.stringify(trail));
  return a.selectors ?? [a.selector!];
}

/** Replays a trail on `url` and returns what the page says was added. */
async function replay(store: SqliteEventStore, trail: Trail, url: string): Promise<string> {
  const driver = await ChromeDriver.launch({ viewport: { width: 1280, height: 800 } });
  try {
    const report = await runPlayback(
      driver,
      store,
      trailToPlan({ ...trail, config: { ...trail.config, url } }),
    );
    assertEquals(report.results.filter((r) => r.status !== "ok"), []);
    return await driver.page.$eval("#out", (e) => e.textContent ?? "");
  } finally {
    await driver.close();
  }
}

Deno.test("optimize() v2 anchors a click in a plain div/span row to the row's name, and the trail hits that row when the rows are reordered", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-div-rows-" });
  const server = serveFolder();
  const db = `${dir}/cairn.db`;
  try {
    const sessionId = await blaze(db, `${server.url}${PAGE}`, "Banana");
    const store = SqliteEventStore.open(db);
    try {
      const v2 = (await projectSessionTrail(store, sessionId, { heuristics: "v2" })).trail;
      const sels = clickOf(v2);
      assertEquals(sels[0], { text: "Add", childOf: { text: "Banana" } });
      assert(sels.every((s) => s.index === undefined && s.xy === undefined), JSON.stringify(sels));
      // v1 still counts identical buttons
      const v1 = (await projectSessionTrail(store, sessionId, { heuristics: "v1" })).trail;
      assert(clickOf(v1).every((s) => s.childOf === undefined), JSON.stringify(clickOf(v1)));

      // as recorded, and with Banana moved from the second row to the third (an index of 1
      // would now click Cherry's Add)
      assertEquals(await replay(store, v2, `${server.url}${PAGE}`), "Added Banana");
      const reordered = `${server.url}${PAGE}?order=Date,Cherry,Banana,Apple`;
      assertEquals(await replay(store, v2, reordered), "Added Banana");
      assertEquals(await replay(store, v1, reordered), "Added Cherry");
    } finally {
      store.close();
    }
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * A Chrome hierarchy of `#list` holding `items` as Chromium captures plain div/span rows: texts
 * as the list's own children, each button with its row's CSS path (`#list > div.row:nth-of-type
 * (r) > button:nth-of-type(k)`), every item of row `r` on line `r`. A text with row 0 is the
 * list's own (a heading inside it, on a line of its own).
 */
function divRows(items: readonly (readonly [row: number, text: string, button?: number])[]): {
  table: ScreenTable;
  buttons: Map<string, number>;
} {
  const nodes: Record<string, unknown>[] = [
    { role: "RootWebArea", name: "Rows", bounds: [0, 0, 800, 600], children: [1] },
    { role: "generic", tag: "div", dom: { id: "list" }, cssPath: "#list", children: [] },
  ];
  const kids = nodes[1]!.children as number[];
  const buttons = new Map<string, number>();
  let x = 0;
  for (const [row, text, nth] of items) {
    const y = 20 + row * 30;
    x += 60;
    kids.push(nodes.length);
    if (nth === undefined) {
      nodes.push({ role: "StaticText", name: text, tag: "#text", bounds: [x, y, 50, 17] });
      continue;
    }
    const at = nodes.length;
    buttons.set(`${row}:${text}`, at); // nodes are listed in document order, as the table
    nodes.push({
      role: "button",
      name: text,
      tag: "button",
      cssPath: `#list > div.row:nth-of-type(${row}) > button:nth-of-type(${nth})`,
      clickable: true,
      bounds: [x, y - 2, 50, 21],
      children: [at + 1],
    }, { role: "StaticText", name: text, tag: "#text", bounds: [x + 4, y, 40, 15] });
  }
  const screen = parseChromeHierarchy({
    schema_version: "cairn.chrome/v1",
    url: "http://127.0.0.1:8765/rows.html",
    title: "Rows",
    viewport: { width: 800, height: 600 },
    devicePixelRatio: 1,
    scroll: { x: 0, y: 0 },
    nodes,
  });
  return { table: ScreenTable.from(screen, { engine: "reference" }), buttons };
}

function bestOf(table: ScreenTable, node: number): Selector {
  const c = rankSelectors(table, node, { platform: "web", level: 2 }).find((x) => !x.rejected);
  return c!.selector;
}

Deno.test("v2 row anchors in dropped div rows: names after their buttons, a heading in the list, a name between a row's buttons", () => {
  // the name after the button, and the list's own heading before the first row: the heading
  // would make the names lead; they share their button's line, so they trail
  const after = divRows([
    [0, "Fruit"],
    [1, "Add", 1],
    [1, "Apple"],
    [2, "Add", 1],
    [2, "Banana"],
    [3, "Add", 1],
    [3, "Cherry"],
  ]);
  assertEquals(bestOf(after.table, after.buttons.get("2:Add")!), {
    text: "Add",
    childOf: { text: "Banana" },
  });
  assertEquals(bestOf(after.table, after.buttons.get("1:Add")!), {
    text: "Add",
    childOf: { text: "Apple" },
  });
  // name, Add, count, Remove: the count lies between two buttons of its row; the name leads
  const mixed = divRows([
    [1, "Apple"],
    [1, "Add", 1],
    [1, "3 left"],
    [1, "Remove", 2],
    [2, "Banana"],
    [2, "Add", 1],
    [2, "5 left"],
    [2, "Remove", 2],
  ]);
  assertEquals(bestOf(mixed.table, mixed.buttons.get("2:Remove")!), {
    text: "Remove",
    childOf: { text: "Banana" },
  });
  assertEquals(bestOf(mixed.table, mixed.buttons.get("1:Add")!), {
    text: "Add",
    childOf: { text: "Apple" },
  });
  // a gap of another size than the rows' (a row without its name): that row keeps an index,
  // and no text is given to a row it may not lie in
  const ragged = divRows([
    [1, "Apple"],
    [1, "Add", 1],
    [2, "Add", 1],
    [3, "Cherry"],
    [3, "Add", 1],
  ]);
  const second = bestOf(ragged.table, ragged.buttons.get("2:Add")!);
  assert(second.childOf === undefined, JSON.stringify(second));
  // the list's heading is no row's name when no text lies between the rows
  const bare = divRows([[0, "Fruit"], [1, "Add", 1], [2, "Add", 1], [3, "Add", 1]]);
  const first = bestOf(bare.table, bare.buttons.get("1:Add")!);
  assert(first.childOf === undefined, JSON.stringify(first));
  assertEquals(bestOf(ragged.table, ragged.buttons.get("3:Add")!), {
    text: "Add",
    childOf: { text: "Cherry" },
  });
});
