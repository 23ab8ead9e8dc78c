// deno bench -A tests/drivers/chrome/hierarchy_bench.ts
// A full Cairn Chrome snapshot against the raw CDP call it builds on, on a 500-element page in
// Debian's Chromium: `Accessibility.getFullAXTree` alone; `captureChromeHierarchy` (AX tree +
// DOM snapshot + page facts in parallel, joined); and capture + parse + render (what
// `cairn snapshot` of a live page costs). One browser for the whole file; it is killed and its
// profile removed when the bench process unloads.
import puppeteer from "puppeteer-core";
import {
  chromeHierarchyToScreen,
  parseChromeHierarchy,
} from "../../../engine/screens/chrome_hierarchy.ts";
import { renderSnapshot } from "../../../engine/screens/snapshot.ts";
import { captureChromeHierarchy } from "../../../drivers/chrome/hierarchy.ts";
import { CHROMIUM_FLAGS } from "../../../drivers/chrome/launch.ts";

const rows = Array.from(
  { length: 100 },
  (_, i) =>
    `<div class="row"><span>Item ${i}</span><input aria-label="Quantity ${i}" data-testid="qty-${i}">` +
    `<button id="add-${i}">Add ${i}</button><a href="#item-${i}">Details ${i}</a></div>`,
).join("");
const HTML = `<!doctype html><title>500 elements</title><body>${rows}</body>`;

const profile = Deno.makeTempDirSync({ prefix: "cairn-bench-" });
const browser = await puppeteer.launch({
  executablePath: Deno.env.get("CAIRN_CHROMIUM") ?? "/usr/bin/chromium",
  headless: false,
  userDataDir: profile,
  defaultViewport: { width: 1280, height: 800 },
  handleSIGINT: false,
  handleSIGTERM: false,
  handleSIGHUP: false,
  args: ["--headless=new", "--hide-scrollbars", ...CHROMIUM_FLAGS],
});
globalThis.addEventListener("unload", () => {
  browser.process()?.kill("SIGKILL");
  // The killed browser may still be writing its profile for a moment: retry, waiting 50 ms.
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let i = 0; i < 40; i++) {
    try {
      Deno.removeSync(profile, { recursive: true });
      return;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return;
      Atomics.wait(pause, 0, 0, 50);
    }
  }
});
const page = await browser.newPage();
await page.setContent(HTML);
const elements = await page.evaluate("document.querySelectorAll('*').length");
if (Number(elements) < 500) throw new Error(`page has ${elements} elements`);
const cdp = await page.createCDPSession();
const sample = await captureChromeHierarchy(cdp);

Deno.bench("raw Accessibility.getFullAXTree (504 elements)", {
  group: "chrome",
  baseline: true,
}, async () => {
  await cdp.send("Accessibility.getFullAXTree", {});
});

Deno.bench("captureChromeHierarchy (AX + DOMSnapshot + page facts, joined)", {
  group: "chrome",
}, async () => {
  await captureChromeHierarchy(cdp);
});

Deno.bench("capture + to screen + render snapshot", { group: "chrome" }, async () => {
  renderSnapshot(chromeHierarchyToScreen(await captureChromeHierarchy(cdp)));
});

Deno.bench(`validate + parse + render only (${sample.nodes.length} AX nodes)`, {
  group: "offline",
}, () => {
  renderSnapshot(parseChromeHierarchy(sample));
});

Deno.bench(
  `to screen + render only (${sample.nodes.length} AX nodes)`,
  { group: "offline" },
  () => {
    renderSnapshot(chromeHierarchyToScreen(sample));
  },
);
