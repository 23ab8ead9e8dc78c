/**
 * A Chrome DevTools Recorder flow that opens menus by hovering (one a CSS `:hover` menu, one a
 * `mouseenter` menu) and clicks an item of each, replayed in a real Chromium on a page served
 * from 127.0.0.1: heuristics v2's trail hovers and the clicks land; v1's trail (the hover as
 * `assertVisible`) leaves the menu shut and its click fails; the flow replayed directly hovers.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { runPlayback } from "../../../runners/playback/runner.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { flowToEvents, type UserFlow } from "../../../engine/formats/chrome_recorder.ts";
import { optimize } from "../../../engine/optimizer/optimize.ts";
import { chromeRecorderToPlan } from "../../../engine/playback/from_chrome_recorder.ts";
import { trailToPlan } from "../../../engine/playback/from_trail.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

function hoverFlow(url: string): UserFlow {
  return {
    title: "Sign out, then ask for help",
    steps: [
      { type: "setViewport", width: 800, height: 600, deviceScaleFactor: 1 },
      { type: "navigate", url },
      { type: "hover", selectors: [["aria/Account"], ["#account"]] },
      { type: "click", selectors: [["aria/Sign out"], ["#sign-out"]], offsetX: 10, offsetY: 8 },
      { type: "hover", selectors: [["aria/Help"], ["#help-button"]] },
      { type: "click", selectors: [["aria/Contact us"], ["#contact"]], offsetX: 10, offsetY: 8 },
    ],
  };
}

Deno.test("a Recorder hover replays as a hover in Chromium: v2's trail opens the menus and clicks in them, v1's cannot", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-hover-" });
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ viewport: { width: 800, height: 600 } });
  const statuses = () =>
    driver.page.$$eval("#status, #help-status", (els) => els.map((e) => e.textContent));
  try {
    const flow = hoverFlow(`${server.url}hover_menu.html`);
    const events = flowToEvents(flow, { sessionId: "hover" });
    const trailOf = (heuristics: string) => optimize(events, new Map(), { heuristics }).trail;

    // v1 first, with the mouse never moved: its "hover" is an assertVisible, the menu stays shut
    const v1 = await runPlayback(driver, store, trailToPlan(trailOf("v1")), {
      locateWaitMs: 300,
    });
    assertEquals(v1.results.map((r) => r.action), [
      "navigate",
      "assert_visible",
      "click",
      "assert_visible",
      "click",
    ]);
    // the buttons are there to see; the items of their shut menus are not
    assert(v1.results.every((r) => r.action === "click" || r.status !== "failed"));
    assertEquals(v1.results.filter((r) => r.action === "click").map((r) => r.status), [
      "failed",
      "failed",
    ]);
    assertEquals(await statuses(), ["Signed in", "No help asked"]);

    const trail = trailOf("v2");
    assertEquals(trail.trail[0]!.recording!.map((a) => a.kind), [
      "navigate",
      "hover",
      "tap",
      "hover",
      "tap",
    ]);
    const v2 = await runPlayback(driver, store, trailToPlan(trail));
    assertEquals(v2.results.map((r) => [r.action, r.status]), [
      ["navigate", "ok"],
      ["hover", "ok"],
      ["click", "ok"],
      ["hover", "ok"],
      ["click", "ok"],
    ]);
    assertEquals(await statuses(), ["Signed out", "Contacting"]);

    // the flow replayed as it is hovers too
    await driver.page.mouse.move(0, 0);
    const direct = await runPlayback(driver, store, chromeRecorderToPlan(flow));
    const bad = direct.results.filter((r) => r.status !== "ok");
    assertEquals(bad, []);
    assert(direct.results.some((r) => r.action === "hover"));
    assertEquals(await statuses(), ["Signed out", "Contacting"]);
  } finally {
    await driver.close();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
