/**
 * Heuristics v2's web selectors replayed in a real Chromium on the pages of the exploratory
 * sessions (served from 127.0.0.1): the shop (a price and a count read from rows without ids, a
 * checkout button whose name holds a count and a total) and the duplicate list (the same
 * "View" button in every row). The trails also replay on copies whose rows are reordered: v2's
 * row-anchored selectors hit the row the session chose, where v1's positional ones hit another.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { optimize } from "../../../engine/optimizer/optimize.ts";
import type { SelectorMode, Trail } from "../../../engine/trail/trail.ts";
import { loadCaptureFile } from "../../_fixtures/optimizer_support.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const DATA = new URL("../../testdata/optimizer_v2/", import.meta.url).pathname;

async function trailOf(
  name: string,
  heuristics: string,
  mode: SelectorMode,
  url: string,
): Promise<Trail> {
  const cap = await loadCaptureFile(`${DATA}${name}.capture.json`, `s-${name}`);
  const { trail } = optimize(cap.events, cap.screens, { heuristics, mode });
  return { ...trail, config: { ...trail.config, url } };
}

/** The shop with its rows in another order: Cactus first. */
async function reorderedShop(): Promise<string> {
  const page = await Deno.readTextFile(`${DATA}shop.html`);
  const rows = page.match(/ <li class="css-a1b2c3">.*<\/li>\n/g)!;
  assertEquals(rows.length, 3);
  return page.replace(rows.join(""), rows[1]! + rows[2]! + rows[0]!);
}

/** The duplicate list with office-1 moved below office-3, and acc-2 above acc-1. */
async function reorderedList(): Promise<string> {
  const page = await Deno.readTextFile(`${DATA}duplicate-list.html`);
  const row = (id: string) =>
    new RegExp(`    <div class="list-item" data-id="${id}">[\\s\\S]*?</button>\\n    </div>\\n`)
      .exec(page)![0];
  const [o1, o2, o3, a1, a2] = ["office-1", "office-2", "office-3", "acc-1", "acc-2"].map(row);
  return page.replace(o1! + o2! + o3!, o3! + o1! + o2!).replace(a1! + a2!, a2! + a1!);
}

Deno.test("optimize() v2 trails of the shop and list sessions replay in Chromium, and pick the session's rows when the rows are reordered", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-v2-replay-" });
  for (const f of ["shop.html", "duplicate-list.html"]) {
    await Deno.copyFile(`${DATA}${f}`, `${dir}/${f}`);
  }
  await Deno.writeTextFile(`${dir}/shop-reordered.html`, await reorderedShop());
  await Deno.writeTextFile(`${dir}/duplicate-list-reordered.html`, await reorderedList());
  const server = serveFolder(dir);
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ viewport: { width: 1280, height: 800 } });
  try {
    const play = async (trail: Trail) => {
      const report = await runPlayback(driver, store, trailToPlan(trail));
      return report.results;
    };
    for (const page of ["shop.html", "shop-reordered.html"]) {
      for (const mode of ["adaptive", "flexible"] as const) {
        const results = await play(await trailOf("shop", "v2", mode, `${server.url}${page}`));
        const bad = results.filter((r) => r.status !== "ok");
        assertEquals(bad, [], `${page} ${mode}: ${JSON.stringify(results, null, 1)}`);
        const read = results.find((r) => r.action === "read_text")!;
        assertEquals(read.value, "$12.50", `${page} ${mode}: the cactus price`);
        // the count read from a row without an id, asserted as a pattern
        assert(results.some((r) => r.action === "assert_text" && r.value === "2 items"));
      }
    }
    for (const page of ["duplicate-list.html", "duplicate-list-reordered.html"]) {
      for (const mode of ["adaptive", "flexible"] as const) {
        const url = `${server.url}${page}`;
        const results = await play(await trailOf("dup", "v2", mode, url));
        // the trail's own check: the detail panel shows office-1 (the row the session chose)
        const checks = results.filter((r) => r.action.startsWith("assert"));
        assertEquals(
          checks.map((r) => r.status),
          ["ok", "ok"],
          `${page} ${mode}: ${JSON.stringify(results, null, 1)}`,
        );
        const clicks = results.filter((r) => r.action === "click");
        assertEquals(clicks.map((r) => [r.status, r.selector_used]), [
          ["ok", "text"],
          ["ok", "text"],
        ]);
        // the second click: the second "Premium Cable" of Accessories, which is acc-2 on
        // both pages (its twin moved ahead of it, as text alone cannot tell them apart)
        const id = await driver.page.evaluate(() =>
          document.getElementById("detail-id")!.textContent
        );
        assertEquals(id, page === "duplicate-list.html" ? "acc-2" : "acc-1");
      }
    }
    // v1 on the reordered list: the positional selectors hit another row, the check fails.
    const v1 = await play(
      await trailOf("dup", "v1", "adaptive", `${server.url}duplicate-list-reordered.html`),
    );
    const v1Check = v1.find((r) => r.action === "assert_text")!;
    assertEquals(v1Check.status, "failed", JSON.stringify(v1, null, 1));
    assert(/office-3/.test(v1Check.error ?? ""), v1Check.error);
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("optimize() v2 trails of the form session replay in Chromium in strict mode (ids, role + name) and flexible mode (labels, not glyphs)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-v2-form-" });
  await Deno.copyFile(`${DATA}index.html`, `${dir}/index.html`);
  const server = serveFolder(dir);
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ viewport: { width: 1280, height: 800 } });
  try {
    for (const mode of ["strict", "flexible"] as const) {
      const trail = await trailOf("form", "v2", mode, `${server.url}index.html`);
      assert(trail.trail.every((s) => s.recordable !== false), `${mode}: every step recorded`);
      const report = await runPlayback(driver, store, trailToPlan(trail));
      assertEquals(
        report.results.filter((r) => r.status !== "ok"),
        [],
        `${mode}: ${JSON.stringify(report.results, null, 1)}`,
      );
      const used = new Set(
        report.results.filter((r) => r.action === "click").map((r) => r.selector_used),
      );
      assertEquals(
        [...used].sort(),
        mode === "strict" ? ["id", "role_name"] : ["aria_label", "text"],
      );
    }
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("optimize() v2 in strict mode replays a Recorder flow by its recorded #id, where v1's aria-label guessed from aria/Name fails", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-v2-recorder-" });
  await Deno.writeTextFile(
    `${dir}/pay.html`,
    `<!doctype html><html><body><form onsubmit="event.preventDefault();
      document.getElementById('done').hidden = false"><button id="submit-payment">Submit</button>
      </form><p id="done" hidden>Paid</p></body></html>`,
  );
  const server = serveFolder(dir);
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ viewport: { width: 800, height: 600 } });
  try {
    const url = `${server.url}pay.html`;
    const flow = {
      title: "pay",
      steps: [
        { type: "navigate", url },
        {
          type: "click",
          selectors: [["aria/Submit"], ["#submit-payment"]],
          offsetX: 5,
          offsetY: 5,
        },
      ],
    };
    await Deno.writeTextFile(`${dir}/flow.json`, JSON.stringify(flow));
    const cap = await loadCaptureFile(`${dir}/flow.json`, "s-pay");
    const statuses: Record<string, string[]> = {};
    for (const heuristics of ["v1", "v2"]) {
      const { trail } = optimize(cap.events, cap.screens, { heuristics, mode: "strict" });
      const report = await runPlayback(driver, store, trailToPlan(trail));
      statuses[heuristics] = report.results.map((r) => `${r.status} ${r.selector_used ?? ""}`);
    }
    assertEquals(statuses.v2, ["ok navigate", "ok id"]);
    assertEquals(statuses.v1![1]!.startsWith("failed"), true, statuses.v1!.join(", "));
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
