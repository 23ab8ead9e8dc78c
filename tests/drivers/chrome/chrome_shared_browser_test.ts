/**
 * One browser, several drivers (a suite's workers): `ChromeDriver.inContext` plays in browser
 * contexts of its own, so two drivers share no storage, play at the same time (no playback lock
 * between them), and closing one leaves the browser and the other running.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { launchChrome } from "../../../drivers/chrome/launch.ts";
import { runPlayback } from "../../../runners/playback/mod.ts";
import { planFromText, rebasePlan } from "../../../engine/playback/load_plan.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

/** A trail that waits `delay` ms for the slow report page's line. */
async function slowReport(base: string, name: string, delay: number) {
  const text = `config:
  platform: web
  url: http://localhost:8000/slow_report.html?delay=${delay}
trail:
  - step: Run
    recording:
      - inputText: { selector: { id: name }, text: ${JSON.stringify(name)} }
      - tap: { selector: { id: run } }
      - assertText: { selector: { id: status }, equals: ${
    JSON.stringify(`Report for ${name}: ready`)
  } }
`;
  return rebasePlan(await planFromText(text, { file: `${name}.trail.yaml` }), base);
}

Deno.test("drivers in one browser: own contexts, two playbacks at once, closing one leaves the rest", async () => {
  const server = serveFolder();
  const dir = await Deno.makeTempDir({ prefix: "cairn-shared-browser-" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const launched = await launchChrome();
  try {
    const a = await ChromeDriver.inContext(launched);
    const b = await ChromeDriver.inContext(launched, { viewport: { width: 800, height: 600 } });
    assert(a.isolated && b.isolated);
    assertEquals(a.browser, b.browser, "one browser");
    assertEquals((await b.viewport()).width, 800);

    // storage of one context is not the other's
    await a.navigate(server.url + "slow_report.html");
    await b.navigate(server.url + "slow_report.html");
    await a.page.evaluate(() => {
      localStorage.setItem("who", "a");
      document.cookie = "who=a";
    });
    assertEquals(await b.page.evaluate(() => localStorage.getItem("who")), null);
    assertEquals(await b.page.evaluate(() => document.cookie), "");

    // two playbacks at the same time, one on each driver: neither is refused as busy, and each
    // runs while the other does (their spans overlap)
    const [ra, rb] = await Promise.all([
      runPlayback(a, store, await slowReport(server.url, "Ann", 1_000)),
      runPlayback(b, store, await slowReport(server.url, "Bob", 1_000)),
    ]);
    assertEquals([ra.status, rb.status], ["completed", "completed"], JSON.stringify([ra, rb]));
    const span = async (id: string) => {
      const events = await Array.fromAsync(store.readStream(`playback-${id}`));
      return [
        Date.parse(events[0]!.meta.recordedAt),
        Date.parse(events.at(-1)!.meta.recordedAt),
      ] as const;
    };
    const [sa, sb] = [await span(ra.playback_id), await span(rb.playback_id)];
    assert(sa[0] < sb[1] && sb[0] < sa[1], `the playbacks overlap: ${sa} ${sb}`);

    // a fresh tab: a new context (nothing of the last run's storage), still the same browser
    await a.freshTab({ viewport: { width: 1000, height: 700 } });
    await a.navigate(server.url + "slow_report.html");
    assertEquals(await a.page.evaluate(() => localStorage.getItem("who")), null);
    assertEquals((await a.viewport()).width, 1000);

    // closing one driver closes its context only
    const contexts = launched.browser.browserContexts().length;
    await a.close();
    assert(launched.browser.connected, "the browser still runs");
    assertEquals(launched.browser.browserContexts().length, contexts - 1);
    assert((await b.url()).includes("/slow_report.html"), "the other driver still plays");
    await b.kill();
    assert(launched.browser.connected, "killing a driver of a shared browser kills no browser");
    assertEquals(launched.browser.browserContexts().length, contexts - 2);
  } finally {
    await launched.close();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
