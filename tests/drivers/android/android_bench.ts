/**
 * Android hot paths on the largest corpus screen (`uiautomator_google_tasks_list.xml`, 79 KB):
 * page source → screen → snapshot text, and the resolution of 1,000 replay lookups (the
 * Android cascade's `id`, `accessibility id`, `UiSelector` text and class + instance) on the
 * captured screen, WASM screen table vs its TS reference, and — for scale — the same lookups
 * sent over the W3C protocol to the STAND-IN server (what a device round trip costs at best).
 *
 * `deno bench -A tests/drivers/android/android_bench.ts`
 */
import { AndroidDriver } from "../../../drivers/android/android_driver.ts";
import { ScreenFinder } from "../../../drivers/android/screen_lookup.ts";
import type { FindQuery } from "../../../drivers/driver.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { ScreenTable } from "../../../engine/screens/screen_table.ts";
import { renderSnapshot } from "../../../engine/screens/snapshot.ts";
import { walk } from "../../../engine/screens/ui_node.ts";
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";

const XML = Deno.readTextFileSync(
  new URL("../../../../shared/corpus/android/uiautomator_google_tasks_list.xml", import.meta.url),
);
const SCREEN = parseHierarchy(XML);

/** 1,000 lookups cycling through the cascade's levels over the screen's own values. */
function replayQueries(count: number): FindQuery[] {
  const pool: FindQuery[] = [];
  const instances = new Map<string, number>();
  for (const [n] of walk(SCREEN.root)) {
    if (n.className === "hierarchy") continue;
    if (n.resourceId) pool.push({ using: "id", value: n.resourceId });
    if (n.contentDescription) pool.push({ using: "accessibility id", value: n.contentDescription });
    if (n.text) {
      pool.push({
        using: "-android uiautomator",
        value: `new UiSelector().text(${JSON.stringify(n.text)})`,
      });
    }
    const k = instances.get(n.className) ?? 0;
    instances.set(n.className, k + 1);
    pool.push({
      using: "-android uiautomator",
      value: `new UiSelector().className(${JSON.stringify(n.className)}).instance(${k})`,
    });
  }
  return Array.from({ length: count }, (_, i) => pool[(i * 7919) % pool.length]!);
}

const QUERIES = replayQueries(1_000);

function resolveAll(engine: "wasm" | "reference"): number {
  const finder = new ScreenFinder(ScreenTable.from(SCREEN, { engine }));
  let found = 0;
  for (const q of QUERIES) found += finder.lookup.find(q).length;
  if (found < QUERIES.length) {
    throw new Error(`only ${found} matches for ${QUERIES.length} lookups`);
  }
  return found;
}

Deno.bench(
  "parse page source (79 KB UiAutomator dump)",
  { group: "source", baseline: true },
  () => {
    parseHierarchy(XML);
  },
);

Deno.bench("parse page source + render snapshot", { group: "source" }, () => {
  renderSnapshot(parseHierarchy(XML));
});

Deno.bench("resolve 1,000 replay lookups on the screen (WASM table)", {
  group: "lookups",
  baseline: true,
}, () => {
  resolveAll("wasm");
});

Deno.bench("resolve 1,000 replay lookups on the screen (TS reference table)", {
  group: "lookups",
}, () => {
  resolveAll("reference");
});

const standin = startAndroidStandin({ screens: { tasks: XML } });
const driver = await AndroidDriver.connect({ appium: standin.url });
const WIRE = QUERIES.slice(0, 100);

Deno.bench("100 of the lookups over W3C to the stand-in (AndroidDriver.find)", {
  group: "wire",
  n: 5,
  warmup: 1,
}, async () => {
  for (const q of WIRE) await driver.find(q);
});

globalThis.addEventListener("unload", () => {
  driver.close().finally(() => standin.close());
});
