/**
 * Side by side on one 500-element page (`tests/testdata/web/big.html`) in real headless
 * Chromium: a Cairn snapshot (`ChromeDriver.snapshot()`: joined AX + DOM + layout capture,
 * parsed into a screen, serialised as the stored blob) against the raw CDP
 * `Accessibility.getFullAXTree` call; and a Cairn tap against the browser's own click.
 *
 * The two snapshot benches interleave the two calls (each times only its own), so both see the
 * same machine load — on a 2-core machine shared with other work, sequential runs drift apart.
 *
 * Run: `deno bench -A tests/chrome_bench.ts`
 */
import { ChromeDriver } from "../drivers/chrome/chrome_driver.ts";
import { serveFolder } from "./web_server.ts";
import { captureChromeHierarchy } from "../drivers/chrome/hierarchy.ts";
import { chromeHierarchyToScreen } from "../engine/chrome_hierarchy.ts";

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
addEventListener("unload", () => {
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
