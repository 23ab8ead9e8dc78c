/**
 * A human recording keeps the parsed screen of each appended hierarchy beside its blob, as an
 * import does: the stored (scrubbed) hierarchy parsed, so a projection that decodes it gives the
 * trail parsing gives. Two real corpus pages recorded in a real Chromium into a SQLite file.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { assertTrailWithoutParsedScreens } from "../../_fixtures/parsed_screens.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { HumanRecorder } from "../../../drivers/chrome/human_recorder.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { encodeScreen, parsedScreenKind, parseHierarchy } from "../../../engine/screens/mod.ts";
import { projectSessionTrail } from "../../../engine/optimizer/mod.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const WEB = new URL("../../../../shared/corpus/web/", import.meta.url).pathname;

async function pause(d: ChromeDriver, r: HumanRecorder): Promise<void> {
  await d.waitForSettle({ quietMs: 150, timeoutMs: 3_000 });
  await new Promise((res) => setTimeout(res, 150));
  await r.flush();
}

async function click(d: ChromeDriver, r: HumanRecorder, css: string): Promise<void> {
  await d.page.waitForSelector(css, { visible: true, timeout: 5_000 });
  const box = await d.page.$eval(css, (el) => {
    const b = el.getBoundingClientRect();
    return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
  });
  await d.page.mouse.click(box.x, box.y, { delay: 40 });
  await pause(d, r);
}

for (
  const [page, css, text] of [
    ["puppeteer-replay/input.html", "#one", "hello"],
    ["puppeteer-replay/checkbox.html", "#checkbox", undefined],
  ] as const
) {
  Deno.test(`a human recording of ${page} keeps each appended screen parsed; the trail is the one parsing gives`, async () => {
    const dir = await Deno.makeTempDir({ prefix: "cairn_record_parsed_" });
    const dbPath = `${dir}/cairn.db`;
    const server = serveFolder(WEB);
    const store = SqliteEventStore.open(dbPath);
    const driver = await ChromeDriver.launch({ followTabs: "all" });
    try {
      const r = await HumanRecorder.start(driver, store, {
        url: server.url + page,
        prompt: "demo",
      });
      await pause(driver, r);
      await click(driver, r, css);
      if (text) {
        await driver.page.keyboard.type(text, { delay: 5 });
        await pause(driver, r);
      }
      await r.stop();
      assertEquals(r.errors, []);

      const hashes = new Set<string>();
      for await (const e of store.readStream(r.streamId)) {
        if (e.type !== "ScreenCaptured" || hashes.has(e.data.hierarchy.hash)) continue;
        hashes.add(e.data.hierarchy.hash);
        const stored = (await store.getBlob(e.data.hierarchy.hash)).bytes;
        const kept = await store.getDerived(e.data.hierarchy.hash, parsedScreenKind(e.data.format));
        assert(kept, `no parsed screen kept for ${e.data.hierarchy.hash}`);
        assertEquals(
          kept,
          encodeScreen(parseHierarchy(new TextDecoder().decode(stored), { format: e.data.format })),
        );
      }
      assert(hashes.size >= 2, `${hashes.size} screens`);
      const sessionId = r.streamId.replace(/^session-/, "");
      const trail = (await projectSessionTrail(store, sessionId)).yaml;
      store.close();
      await assertTrailWithoutParsedScreens(
        dbPath,
        sessionId,
        trail,
        "UPDATE blobs SET bytes = CAST('{' AS BLOB) WHERE media_type = 'application/json'",
      );
    } finally {
      await driver.close();
      store.close();
      await server.close();
      await Deno.remove(dir, { recursive: true });
    }
  });
}
