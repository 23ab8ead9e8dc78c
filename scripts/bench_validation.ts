/**
 * Validation figures for BENCHMARKS.md: per case, the iterations the authoring loop took to
 * converge (over several independent captures), and the pass rate of fresh replays of each
 * validated trail. A replay passes when no recordable action failed or healed (the agent's
 * `recordable: false` step is skipped by design). Real headless Chromium, the varying shop
 * of `tests/_fixtures/validation_server.ts`, captures made by an agent-style blaze.
 *
 * `deno run -A scripts/bench_validation.ts [--captures 2] [--replays 20] [--raw-replays 5]`
 * prints a Markdown table; bounded to a few minutes on a 2-core machine.
 *
 * @module
 */
import { ChromeDriver } from "../drivers/chrome/chrome_driver.ts";
import { runPlayback } from "../runners/playback/runner.ts";
import { runValidation } from "../runners/validation/runner.ts";
import { trailToPlan } from "../engine/playback/from_trail.ts";
import { projectSessionTrail } from "../engine/optimizer/trail_projection.ts";
import { parseTrail } from "../engine/trail/trail.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { blazeShop } from "../tests/_fixtures/validation_capture.ts";
import { serveVaryingShop } from "../tests/_fixtures/validation_server.ts";

interface Case {
  name: string;
  vary: boolean;
  slot: boolean;
}

const CASES: Case[] = [
  { name: "static page (control)", vary: false, slot: false },
  {
    name: "random ids + regenerated classes + shuffled list + A/B banner",
    vary: true,
    slot: false,
  },
  { name: "same, plus “pick any available slot” (random target)", vary: true, slot: true },
];

function flag(name: string, fallback: number): number {
  const i = Deno.args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(Deno.args[i + 1]) : fallback;
  if (!Number.isInteger(v) || v < 1 || v > 100) throw new RangeError(`--${name}: 1…100`);
  return v;
}

const captures = flag("captures", 2);
const replays = flag("replays", 20);
const rawReplays = flag("raw-replays", 5);
const dir = await Deno.makeTempDir({ prefix: "cairn-bench-validation-" });
const store = SqliteEventStore.open(`${dir}/cairn.db`);
const driver = await ChromeDriver.launch();
const rows: string[] = [];
const t0 = performance.now();
try {
  for (const c of CASES) {
    const shop = await serveVaryingShop({ vary: c.vary });
    try {
      const iterations: number[] = [];
      const outcomes: string[] = [];
      let passed = 0;
      let total = 0;
      let validateMs = 0;
      let rawPassed = 0;
      let rawTotal = 0;
      for (let k = 0; k < captures; k++) {
        const sessionId = await blazeShop(driver, store, shop.url, { slot: c.slot });
        // The optimizer's trail before validation, on the same kind of fresh loads.
        const raw = trailToPlan((await projectSessionTrail(store, sessionId)).trail);
        for (let r = 0; r < rawReplays; r++) {
          const report = await runPlayback(driver, store, raw, {
            overlay: false,
            locateWaitMs: 300,
          });
          rawTotal++;
          if (report.actions_failed === 0 && report.actions_healed === 0) rawPassed++;
        }
        const v0 = performance.now();
        const state = await runValidation(driver, store, sessionId, { url: shop.url });
        validateMs += performance.now() - v0;
        iterations.push(state.iteration);
        const unstable = state.finalSteps?.filter((s) => s.status === "unstable").length ?? 0;
        outcomes.push(unstable ? `${state.status} (${unstable} step flagged)` : state.status);
        const plan = trailToPlan(parseTrail(state.trail));
        for (let r = 0; r < replays; r++) {
          const report = await runPlayback(driver, store, plan, { overlay: false });
          total++;
          if (report.actions_failed === 0 && report.actions_healed === 0) passed++;
        }
      }
      rows.push(
        `| ${c.name} | ${iterations.join(", ")} | ${[...new Set(outcomes)].join("; ")} | ` +
          `${rawPassed}/${rawTotal} (${(100 * rawPassed / rawTotal).toFixed(0)} %) | ` +
          `${passed}/${total} (${(100 * passed / total).toFixed(0)} %) | ` +
          `${(validateMs / captures / 1000).toFixed(1)} s |`,
      );
      console.error(rows.at(-1));
    } finally {
      await shop.close();
    }
  }
} finally {
  await driver.close();
  store.close();
  await Deno.remove(dir, { recursive: true });
}
console.log(
  "| case | iterations to converge (per capture) | outcome | fresh replays of the unvalidated trail passed | fresh replays of the validated trail passed | validation time (mean) |",
);
console.log("| --- | --- | --- | --- | --- | --- |");
for (const r of rows) console.log(r);
console.log(
  `\n${captures} captures per case; per capture ${rawReplays} fresh replays of the optimizer's ` +
    `trail before validation and ${replays} of the validated trail; ` +
    `total ${((performance.now() - t0) / 1000).toFixed(0)} s`,
);
