/**
 * The coordinate fallback in real Chromium on a page served from 127.0.0.1 whose clicks are
 * handled by one listener on the document (so the page itself counts as clickable): a point
 * that now lands on the page's background, not on the recorded element, is not located — the
 * player never reads (or clicks) the whole page in place of the recorded element; a point on a
 * button still clicks it.
 */
import { assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { type PlaybackOptions, runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

/** Notes: rows of two texts with a wide gap between them, well below the header. */
const NOTES = `<!doctype html><html><head><title>Notes</title>
<style>
  body { margin: 0; font: 16px sans-serif; }
  h2 { margin: 0; height: 40px; }
  .row { display: flex; justify-content: space-between; width: 600px; height: 40px; margin-top: 200px; }
</style></head><body>
<h2>Notes</h2>
<div class="row"><span class="who">Ann</span><span class="when">Monday</span></div>
<button id="more" style="position: absolute; left: 0; top: 400px">More</button>
<script>
  window.__log = [];
  document.addEventListener("click", (e) => window.__log.push("click:" + e.target.tagName));
</script>
</body></html>`;

const FAST: PlaybackOptions = { locateWaitMs: 200, expectWaitMs: 400, actionTimeoutMs: 5_000 };

/** Plays one action (`assertText` or `tap`) at a bare recorded point; its result and the log. */
async function playAt(
  x: number,
  y: number,
  action: "assertText" | "tap",
): Promise<{ status: string; error: string | undefined; log: string[] }> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-point-read-" });
  await Deno.writeTextFile(`${dir}/notes.html`, NOTES);
  const server = serveFolder(dir);
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ viewport: { width: 1000, height: 700 } });
  try {
    const trail = parseTrail(`config:
  platform: web
  url: ${server.url}notes.html
  viewport: { width: 1000, height: 700 }
trail:
  - step: Check
    recording:
      - ${action}:
          selector: { xy: [${x}, ${y}], viewport: { width: 1000, height: 700 } }${
      action === "assertText" ? '\n          equals: "Ann Monday"' : ""
    }
`);
    const report = await runPlayback(driver, store, trailToPlan(trail), FAST);
    const r = report.results[1]!;
    const log = await driver.page.evaluate(() =>
      (globalThis as unknown as { __log: string[] }).__log
    );
    return { status: r.status, error: r.error, log };
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the coordinate fallback never takes the page itself for the recorded element", async () => {
  // an assertion whose point is now on the background (below everything, or between the row's
  // texts): not located, the page's text is not read
  for (const [x, y] of [[300, 600], [300, 249]] as const) {
    const r = await playAt(x, y, "assertText");
    assertEquals([x, y, r.status], [x, y, "failed"]);
    assertStringIncludes(r.error!, "is on the page itself");
  }
  // a tap there clicks nothing
  const background = await playAt(300, 600, "tap");
  assertEquals([background.status, background.log], ["failed", []]);
  assertStringIncludes(background.error!, "is on the page itself");
  // a tap on the button is taken
  const button = await playAt(20, 410, "tap");
  assertEquals([button.status, button.log], ["ok", ["click:BUTTON"]]);
});
