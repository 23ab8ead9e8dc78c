/**
 * Side by side on one 500-element page (`tests/testdata/web/big.html`) in real headless
 * Chromium: a Cairn snapshot (`ChromeDriver.snapshot()`: joined AX + DOM + layout capture,
 * parsed into a screen, serialised as the stored blob) against the raw CDP
 * `Accessibility.getFullAXTree` call; and a Cairn tap against the browser's own click.
 *
 * The two snapshot benches interleave the two calls (each times only its own), so both see the
 * same machine load — on a 2-core machine shared with other work, sequential runs drift apart.
 *
 * The row-anchor groups replay a trail's text-only `childOf` (`{ text: Add, childOf: { text: Wild
 * Clover } }`, the 500th row of `plants.html`) as the Chrome driver finds it from its parts,
 * against the same lookup as the XPath alone (what the driver ran before): the lookup by itself,
 * and a whole replayed click (lookup, tap, the runner's 50 ms DOM-quiet settle, the overlay, the
 * events in SQLite).
 *
 * Run: `deno bench -A tests/drivers/chrome/chrome_bench.ts` (the row-anchor groups alone: add
 * `--filter "row anchor"`)
 */
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { captureChromeHierarchy } from "../../../drivers/chrome/hierarchy.ts";
import { chromeHierarchyToScreen } from "../../../engine/screens/chrome_hierarchy.ts";
import { webCascade } from "../../../engine/playback/cascade.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import type { Driver, FindQuery } from "../../../drivers/driver.ts";

const server = serveFolder();
const driver = await ChromeDriver.launch();
await driver.navigate(server.url + "big.html");
const cdp = await driver.cdp();
const [buy] = await driver.find({ using: "css", value: "[data-testid=buy-3]" });
if (!buy) throw new Error("big.html did not render");
const at = { x: Math.round(buy.bounds.x + buy.bounds.w / 2), y: Math.round(buy.bounds.y + 8) };
const axNodes = (await cdp.send("Accessibility.getFullAXTree")).nodes.length;
const captured = await captureChromeHierarchy(cdp);
console.log(`big.html: ${axNodes} AX nodes`);

// Chromium and the server go with the process (deno bench has no after-all hook).
const pid = driver.browser.process()?.pid;
const profile = driver.userDataDir;
const storeDir = Deno.makeTempDirSync({ prefix: "cairn-chrome-bench-" });
const store = SqliteEventStore.open(`${storeDir}/cairn.db`);
addEventListener("unload", () => {
  store.close();
  Deno.removeSync(storeDir, { recursive: true });
  try {
    if (pid) Deno.kill(pid, "SIGKILL");
  } catch { /* gone */ }
  // Chromium's helpers may write to the profile for a moment after the kill: retry briefly.
  const wait = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; profile && i < 40; i++) {
    try {
      Deno.removeSync(profile, { recursive: true });
      break;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) break;
      Atomics.wait(wait, 0, 0, 50);
    }
  }
});

Deno.bench({
  name: "raw CDP Accessibility.getFullAXTree",
  group: "snapshot",
  baseline: true,
  async fn(b) {
    await driver.snapshot(); // untimed: both benches run both calls, each times its own
    b.start();
    await cdp.send("Accessibility.getFullAXTree");
    b.end();
  },
});

Deno.bench({
  name: "ChromeDriver.snapshot() (AX + DOM + layout, parsed, serialised)",
  group: "snapshot",
  async fn(b) {
    await cdp.send("Accessibility.getFullAXTree"); // untimed, as above
    b.start();
    await driver.snapshot();
    b.end();
  },
});

Deno.bench({
  name: "offline share of snapshot(): to screen + serialise the captured hierarchy",
  group: "snapshot",
  fn() {
    chromeHierarchyToScreen(captured);
    new TextEncoder().encode(JSON.stringify(captured));
  },
});

// The same pair run back to back (each call after itself), as a plain sequential comparison.
Deno.bench({
  name: "sequential: raw CDP Accessibility.getFullAXTree",
  group: "snapshot, sequential",
  baseline: true,
  async fn() {
    await cdp.send("Accessibility.getFullAXTree");
  },
});

Deno.bench({
  name: "sequential: ChromeDriver.snapshot()",
  group: "snapshot, sequential",
  async fn() {
    await driver.snapshot();
  },
});

Deno.bench({
  name: "browser click: page.mouse.click",
  group: "tap",
  baseline: true,
  async fn() {
    await driver.page.mouse.click(at.x, at.y);
  },
});

Deno.bench({
  name: "ChromeDriver.tap()",
  group: "tap",
  async fn() {
    await driver.tap(at);
  },
});

// ---- row anchors: a trail's text-only childOf on a 500-row list ----

/** plants.html (500 rows) in the tab, opened by the first row-anchor bench that runs. */
async function onPlants(): Promise<void> {
  if (!(await driver.url()).includes("plants.html")) {
    await driver.navigate(server.url + "plants.html");
  }
}
const anchored = webCascade({ text: "Add", within: { texts: ["Wild Clover"] } })[0]!.queries[0]!;
const xpathOnly: FindQuery = { using: anchored.using, value: anchored.value };
/** The driver as it found row anchors before: by the XPath alone, without its parts. */
const xpathDriver = new Proxy(driver, {
  get(target, key) {
    if (key === "find") {
      return (q: FindQuery) => target.find({ using: q.using, value: q.value });
    }
    const v = Reflect.get(target, key, target);
    return typeof v === "function" ? v.bind(target) : v;
  },
}) as Driver;
const clickPlan = trailToPlan(parseTrail(`config:
  platform: web
trail:
  - step: Add a Wild Clover
    recording:
      - tap: { text: Add, childOf: { text: Wild Clover } }
`));

Deno.bench({
  name: "row anchor lookup, 500 rows: the XPath alone (before)",
  group: "row anchor lookup",
  baseline: true,
  n: 5,
  warmup: 1,
  async fn(b) {
    await onPlants();
    b.start();
    const found = await driver.find(xpathOnly);
    b.end();
    if (found.length !== 1) throw new Error(`${found.length} matches`);
  },
});

Deno.bench({
  name: "row anchor lookup, 500 rows: ChromeDriver.find() from its parts (after)",
  group: "row anchor lookup",
  n: 50,
  warmup: 5,
  async fn(b) {
    await onPlants();
    b.start();
    const found = await driver.find(anchored);
    b.end();
    if (found.length !== 1) throw new Error(`${found.length} matches`);
  },
});

Deno.bench({
  name: "row anchor click, 500 rows: runPlayback() finding by the XPath alone (before)",
  group: "row anchor click",
  baseline: true,
  n: 5,
  warmup: 1,
  async fn(b) {
    await onPlants();
    b.start();
    const report = await runPlayback(xpathDriver, store, clickPlan, { actionTimeoutMs: 60_000 });
    b.end();
    if (report.results[0]?.status !== "ok") throw new Error(JSON.stringify(report.results));
  },
});

Deno.bench({
  name: "row anchor click, 500 rows: runPlayback() as it plays (after)",
  group: "row anchor click",
  n: 50,
  warmup: 5,
  async fn(b) {
    await onPlants();
    b.start();
    const report = await runPlayback(driver, store, clickPlan, { actionTimeoutMs: 60_000 });
    b.end();
    if (report.results[0]?.status !== "ok") throw new Error(JSON.stringify(report.results));
  },
});
