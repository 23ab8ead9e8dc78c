/**
 * Validation refines and prunes a trail's selectors at the trail's own heuristics level, with the
 * optimizer's ranking of that level: real Chromium, SQLite and HTTP on 127.0.0.1, on the
 * tester's captures (tests/testdata/optimizer_v2). The duplicate list has a "View" button in
 * every row and nothing else that tells them apart: a v2 trail is refined to v2's row anchors
 * (`childOf: { text }`), positional candidates rejected; a v1 trail still gets v1's CSS path. The
 * shop's checkout button is named with a count and a total: v2's `textRegex` of its text holds
 * in every run, as v2's cascade reads it, and is no longer pruned as "changed between runs".
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { ingestOnce } from "../../../cli/optimize.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { runValidation } from "../../../runners/validation/runner.ts";
import { projectSessionTrail } from "../../../engine/optimizer/trail_projection.ts";
import { parseTrail, type Selector, type Trail } from "../../../engine/trail/trail.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const DIR = new URL("../../testdata/optimizer_v2/", import.meta.url).pathname;
const VIEW = "View the Premium Cable in Office Supplies";
const CHECK_OUT = "Check out";

async function withRig(
  fn: (rig: { store: SqliteEventStore; driver: ChromeDriver; url: string }) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-validate-refine-" });
  const server = serveFolder(DIR);
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  try {
    await fn({ store, driver, url: server.url });
  } finally {
    await driver.close();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** The trail with the selectors of `step`'s first action replaced. */
function withSelectors(trail: Trail, step: string, selectors: Selector[]): Trail {
  const out = structuredClone(trail);
  const action = out.trail.find((s) => s.step === step)?.recording?.[0];
  assert(action, `no action in step ${step}`);
  delete action.selector;
  delete action.selectors;
  if (selectors.length === 1) action.selector = selectors[0]!;
  else action.selectors = selectors;
  return out;
}

function selectorsOf(trail: Trail, step: string): Selector[] {
  const a = trail.trail.find((s) => s.step === step)?.recording?.[0];
  return [...(a?.selector ? [a.selector] : []), ...(a?.selectors ?? [])];
}

Deno.test("runValidation() refines a v2 trail's repeated row button to v2's row anchors; a v1 trail's as v1 did", async () => {
  await withRig(async ({ store, driver, url }) => {
    const sessionId = await ingestOnce(store, `${DIR}dup.capture.json`);
    const refined: Record<string, Selector[]> = {};
    for (const heuristics of ["v1", "v2"]) {
      const { trail } = await projectSessionTrail(store, sessionId, { heuristics });
      assertEquals(trail.config.heuristics, heuristics);
      // the first replay misses the button: the step is refined from both runs
      const broken = withSelectors(trail, VIEW, [{ testId: "no-such-button" }]);
      const state = await runValidation(driver, store, sessionId, {
        trail: broken,
        url: `${url}duplicate-list.html`,
        policy: "dev",
      });
      const first = state.iterations[0]!.steps.find((s) => s.step === VIEW)!;
      assert(first.refined, `${heuristics}: ${first.evidence.join("\n")}`);
      const second = state.iterations[1]!.steps.find((s) => s.step === VIEW)!;
      assert(second.passed, `${heuristics}: ${second.evidence.join("\n")}`);
      refined[heuristics] = selectorsOf(parseTrail(state.trail), VIEW);
    }
    // v2: the button in the row showing the product in the card showing the category
    assertEquals(refined.v2, [{
      text: "View",
      childOf: { text: "Premium Cable", childOf: { text: "Office Supplies" } },
    }]);
    // v1 unchanged: no parent scope or index on the web, its CSS path
    assertEquals(refined.v1, [{
      cssPath: "body > div.card:nth-of-type(2) > div.list-item:nth-of-type(2) > button",
    }]);
  });
});

Deno.test("runValidation() keeps a v2 trail's textRegex fallback that holds in every run (matched as v2's cascade reads it)", async () => {
  await withRig(async ({ store, driver, url }) => {
    const sessionId = await ingestOnce(store, `${DIR}shop.capture.json`);
    const { trail } = await projectSessionTrail(store, sessionId, { heuristics: "v2" });
    const pattern = selectorsOf(trail, CHECK_OUT)[0]!;
    assert(pattern.textRegex?.startsWith("Checkout "), JSON.stringify(pattern));
    // the pattern of the button's name as a fallback after its CSS path
    const start = withSelectors(trail, CHECK_OUT, [{ cssPath: "body > header > button" }, pattern]);
    const progress: string[] = [];
    const state = await runValidation(driver, store, sessionId, {
      trail: start,
      url: `${url}shop.html`,
      maxIterations: 1,
      onProgress: (l) => progress.push(l),
    });
    const step = state.finalSteps!.find((s) => s.step === CHECK_OUT)!;
    assertEquals(step.status, "stable", progress.join("\n"));
    const at = start.trail.findIndex((s) => s.step === CHECK_OUT) + 1;
    assertEquals(
      progress.filter((l) => l.startsWith(`  step ${at}: dropped fallback`)),
      [],
      progress.join("\n"),
    );
    assertEquals(selectorsOf(parseTrail(state.trail), CHECK_OUT), [
      { cssPath: "body > header > button" },
      pattern,
    ]);
  });
});
