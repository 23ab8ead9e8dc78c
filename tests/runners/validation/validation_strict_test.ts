/**
 * A strict trail is refined to the one exact selector that held, never a fallback chain: real
 * headless Chromium, SQLite and HTTP on 127.0.0.1, on the shop that changes on every load
 * (tests/_fixtures/validation_server.ts). Strict (000 "Selector Modes": "Exact match on id or unique
 * property. Fail if not found.") replays only the primary selector, so a fallback is never tried
 * and proves nothing; adaptive's refinement of the same step keeps the label and its fallbacks.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { runValidation } from "../../../runners/validation/runner.ts";
import { parseTrail } from "../../../engine/trail/trail.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { blazeShop } from "../../_fixtures/validation_capture.ts";
import { serveVaryingShop } from "../../_fixtures/validation_server.ts";

Deno.test("runValidation() in strict mode refines the regenerated test id to the one label that held, with no fallbacks", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-strict-" });
  const shop = await serveVaryingShop();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  try {
    const sessionId = await blazeShop(driver, store, shop.url);
    const progress: string[] = [];
    const state = await runValidation(driver, store, sessionId, {
      url: shop.url,
      mode: "strict",
      onProgress: (l) => progress.push(l),
    });
    const final = parseTrail(state.trail, "final trail");
    assertEquals(final.config.selectorMode, "strict");
    const step = final.trail.findIndex((s) => s.step === "Add an Espresso to the cart");
    assertEquals(state.finalSteps![step]!.status, "refined", progress.join("\n"));
    const add = final.trail[step]!.recording![0]!;
    assertEquals(add.selector, { ariaLabel: "Add Espresso" }, JSON.stringify(add));
    assertEquals(add.selectors, undefined, JSON.stringify(add));
    // No strict action of the final trail keeps a fallback: strict would never try it.
    for (const s of final.trail) {
      for (const a of s.recording ?? []) {
        assert((a.selectors ?? []).length <= 1, `${s.step}: ${JSON.stringify(a)}`);
      }
    }
  } finally {
    await driver.close();
    store.close();
    await shop.close();
    await Deno.remove(dir, { recursive: true });
  }
});
