/**
 * Regenerates a Chrome hierarchy fixture of `tests/testdata/snapshots/`: serves a folder on
 * 127.0.0.1, opens a page at 800 × 600 in Debian's Chromium, captures the joined hierarchy (the
 * port in its url normalised to 8000) and optionally a screenshot.
 *
 * `deno run -A tests/_fixtures/snapshot_capture_fixture.ts tests/testdata/snapshots/web form.html
 * tests/testdata/snapshots/web_form.chrome.json tests/testdata/snapshots/web_form.png`
 *
 * @module
 */
import { captureChromeHierarchy } from "../../drivers/chrome/hierarchy.ts";
import { launchChrome } from "../../drivers/chrome/launch.ts";
import { serveFolder } from "./web_server.ts";

if (import.meta.main) {
  const [dir, path, out, shot] = Deno.args;
  if (!dir || !path || !out) {
    console.error("usage: snapshot_capture_fixture.ts DIR PAGE OUT.json [SHOT.png]");
    Deno.exit(2);
  }
  const server = serveFolder(dir);
  const browser = await launchChrome();
  try {
    const page = await browser.browser.newPage();
    await page.setViewport({ width: 800, height: 600 });
    await page.goto(server.url + path);
    const cdp = await page.createCDPSession();
    const h = await captureChromeHierarchy(cdp);
    h.url = h.url.replace(/127\.0\.0\.1:\d+/, "127.0.0.1:8000");
    Deno.writeTextFileSync(out, JSON.stringify(h, null, 1) + "\n");
    if (shot) Deno.writeFileSync(shot, await page.screenshot({ type: "png" }));
  } finally {
    await browser.close();
    await server.close();
  }
}
