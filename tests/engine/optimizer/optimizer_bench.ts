// The optimizer on a 1,000-action capture with 500-node screens (100 distinct screens, each
// behind 10 actions, as consecutive captures repeat screens): WASM screen tables against the
// TS reference, one run, same data; and, once at start, the share of the time spent in the
// hot path (table flattening, and the WASM queries including copying a table into memory).
//
// The `list` group: a web long list (tests/_fixtures/long_list_capture.ts), 200 clicks on the identical
// "Add" / "Remove" buttons of a 500-row list whose rows differ only in their text, every click
// on its own 3,504-node screen (a click changes its row's count), under heuristics v1 and v2:
// what v2's row anchors (`childOf: { text }`, against v1's indexes) cost, as a ratio in one run.
// deno bench -A tests/engine/optimizer/optimizer_bench.ts [--filter "long list"]
import type { NewEvent } from "../../../events/schemas.ts";
import { optimize } from "../../../engine/optimizer/optimize.ts";
import { ScreenTable } from "../../../engine/screens/screen_table.ts";
import { makeNode, type Screen, type UiNode, walk } from "../../../engine/screens/ui_node.ts";
import { wasmHotPath } from "../../../wasm/mod.ts";
import { makeLongListCapture } from "../../_fixtures/long_list_capture.ts";

const ACTIONS = 1000;
const SCREENS = 100;
const NODES = 500;

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 500-node Android-like screen: a header, buttons, a list of rows with repeated ids. */
function makeScreen(k: number, rand: () => number): Screen {
  const rows: UiNode[] = [];
  let count = 2;
  for (let r = 0; count < NODES - 8; r++) {
    const y = 400 + r * 60;
    const kids = [
      makeNode({
        className: "android.widget.TextView",
        resourceId: "row-title",
        text: `Item ${r} of ${k}`,
        bounds: { x: 20, y, w: 600, h: 50 },
      }),
      makeNode({
        className: "android.widget.TextView",
        resourceId: "row-price",
        text: `$${(rand() * 90 + 10).toFixed(2)}`,
        bounds: { x: 700, y, w: 200, h: 50 },
      }),
      makeNode({
        className: "android.widget.ImageView",
        resourceId: `icon-${Math.floor(rand() * 1e8)}`,
        bounds: { x: 950, y, w: 50, h: 50 },
      }),
    ];
    rows.push(
      makeNode({
        className: "android.view.ViewGroup",
        resourceId: "row",
        clickable: true,
        bounds: { x: 0, y, w: 1080, h: 60 },
        children: kids,
      }),
    );
    count += 4;
  }
  const root = makeNode({
    className: "android.widget.FrameLayout",
    bounds: { x: 0, y: 0, w: 1080, h: 40000 },
    children: [
      makeNode({
        className: "android.widget.TextView",
        resourceId: "count",
        text: String(k),
        bounds: { x: 0, y: 100, w: 300, h: 80 },
      }),
      makeNode({
        className: "android.widget.Button",
        resourceId: "add-item-button",
        text: "Add",
        clickable: true,
        bounds: { x: 0, y: 200, w: 500, h: 100 },
      }),
      makeNode({
        className: "android.widget.EditText",
        resourceId: "search-input",
        hint: "Search",
        focused: true,
        clickable: true,
        bounds: { x: 520, y: 200, w: 500, h: 100 },
      }),
      makeNode({
        className: "android.widget.ScrollView",
        scrollable: true,
        bounds: { x: 0, y: 380, w: 1080, h: 39000 },
        children: rows,
      }),
    ],
  });
  return { platform: "android", format: "uiautomator2", root, width: 1080, height: 40000 };
}

function makeCapture(SCREENS: number): { events: NewEvent[]; screens: Map<string, Screen> } {
  const rand = prng(1000);
  const screens = new Map<string, Screen>();
  const hashes: string[] = [];
  for (let k = 0; k < SCREENS; k++) {
    const h = (k + 1).toString(16).padStart(64, "0");
    screens.set(h, makeScreen(k, rand));
    hashes.push(h);
  }
  const events: NewEvent[] = [{
    type: "SessionStarted",
    data: {
      sessionId: "bench",
      mode: "agent",
      platform: "android",
      memory: { user: "bench-user@example.com" },
    },
  }];
  const NL = [
    "Open an item",
    "Note the count",
    "Add 2 items",
    "Verify count increased by 2",
    "Search for plants",
    "Verify a price is shown",
  ];
  for (let i = 0; i < ACTIONS; i++) {
    if (i % 5 === 0) {
      events.push({ type: "StepStarted", data: { index: i / 5, text: NL[(i / 5) % NL.length]! } });
    }
    const h = hashes[Math.floor(i / (ACTIONS / SCREENS))]!;
    if (i % (ACTIONS / SCREENS) === 0) {
      events.push({
        type: "ScreenCaptured",
        data: {
          hierarchy: { hash: h, mediaType: "application/xml", size: 1 },
          format: "uiautomator2",
        },
      });
    }
    const screen = screens.get(h)!;
    const nodes = [...walk(screen.root)].map(([n]) => n);
    const node = nodes[Math.floor(rand() * nodes.length)]!;
    const point = { x: node.bounds.x + node.bounds.w / 2, y: node.bounds.y + node.bounds.h / 2 };
    const id = `a${i}`;
    const kind = (["tap", "tap", "readText", "inputText", "assertVisible"] as const)[i % 5]!;
    const data: NewEvent & { type: "ActionPerformed" } = {
      type: "ActionPerformed",
      data: {
        actionId: id,
        kind,
        source: "agent",
        ...(kind === "tap" || kind === "readText" ? { point } : {}),
      },
    };
    if (kind === "inputText") data.data.text = i % 2 ? "bench-user@example.com" : `plants ${i}`;
    if (kind === "assertVisible") data.data.expected = node.text ?? "Add";
    events.push(data);
    events.push({
      type: "ActionCompleted",
      data: {
        actionId: id,
        ok: i % 50 !== 7,
        durationMs: 1,
        ...(kind === "readText" ? { value: node.text ?? "" } : {}),
      },
    });
    if (i % 10 === 0) {
      events.push({
        type: "MemorySnapshotted",
        data: { memory: { user: "bench-user@example.com", [`k${i}`]: `value-${i}-long` } },
      });
    }
  }
  return { events, screens };
}

const { events, screens } = makeCapture(SCREENS);
const distinct = makeCapture(ACTIONS);

/** Times one optimization with the hot path instrumented. */
function hotPathShare(): void {
  const proto = Object.getPrototypeOf(wasmHotPath()) as Record<string, unknown>;
  let inWasm = 0;
  let inFlatten = 0;
  const restore: [string, unknown][] = [];
  for (const name of Object.getOwnPropertyNames(proto)) {
    const fn = proto[name];
    if (name === "constructor" || typeof fn !== "function") continue;
    restore.push([name, fn]);
    proto[name] = function (this: unknown, ...args: unknown[]) {
      const t0 = performance.now();
      try {
        return (fn as (...a: unknown[]) => unknown).apply(this, args);
      } finally {
        inWasm += performance.now() - t0;
      }
    };
  }
  const from = ScreenTable.from;
  ScreenTable.from = function (s, o) {
    const t0 = performance.now();
    try {
      return from.call(ScreenTable, s, o);
    } finally {
      inFlatten += performance.now() - t0;
    }
  };
  const t0 = performance.now();
  const r = optimize(events, screens, { tableEngine: "wasm" });
  const total = performance.now() - t0;
  ScreenTable.from = from;
  for (const [name, fn] of restore) proto[name] = fn;
  const kept = r.trail.trail.reduce((n, s) => n + (s.recording?.length ?? 0), 0);
  console.log(
    `warm optimize ${ACTIONS} actions, ${SCREENS} distinct ${NODES}-node screens: ${
      total.toFixed(1)
    } ms ` +
      `(instrumented); WASM queries ${inWasm.toFixed(1)} ms = ${
        (100 * inWasm / total).toFixed(1)
      } %, ` +
      `flattening ${inFlatten.toFixed(1)} ms = ${(100 * inFlatten / total).toFixed(1)} %; ` +
      `${kept} actions written`,
  );
}
for (let i = 0; i < 3; i++) optimize(events, screens, { tableEngine: "wasm" }); // warm up the JIT
hotPathShare();

let sink = 0;
Deno.bench({
  name: `optimize: ${ACTIONS} actions, ${SCREENS} distinct ${NODES}-node screens (WASM tables)`,
  group: "optimize",
  baseline: true,
  n: 10,
  fn() {
    sink ^= optimize(events, screens, { tableEngine: "wasm" }).explain.length;
  },
});
Deno.bench({
  name:
    `optimize: ${ACTIONS} actions, ${SCREENS} distinct ${NODES}-node screens (TS reference tables)`,
  group: "optimize",
  n: 10,
  fn() {
    sink ^= optimize(events, screens, { tableEngine: "reference" }).explain.length;
  },
});
Deno.bench({
  name: `optimize: same capture under heuristics v1 (v2 is the default)`,
  group: "optimize",
  n: 10,
  fn() {
    sink ^= optimize(events, screens, { tableEngine: "wasm", heuristics: "v1" }).explain.length;
  },
});
Deno.bench({
  name:
    `optimize: same capture, ${SCREENS} tables cached from an earlier projection (re-projection)`,
  group: "optimize",
  n: 10,
  fn() {
    sink ^= optimize(events, screens, { tableEngine: "wasm", tables: cache }).explain.length;
  },
});
Deno.bench({
  name: `optimize: ${ACTIONS} actions, every one on its own ${NODES}-node screen (worst case)`,
  group: "optimize",
  n: 5,
  fn() {
    sink ^= optimize(distinct.events, distinct.screens, { tableEngine: "wasm" }).explain.length;
  },
});
const cache = new Map<string, ScreenTable>();
optimize(events, screens, { tableEngine: "wasm", tables: cache });

const LIST_ROWS = 500;
const LIST_CLICKS = 200;
const list = makeLongListCapture({ rows: LIST_ROWS, actions: LIST_CLICKS });
{
  // What each version writes, so the figures say what they pay for.
  const written = (heuristics: string) => {
    const { trail } = optimize(list.events, list.screens, { tableEngine: "wasm", heuristics });
    const first = trail.trail.flatMap((s) => s.recording ?? []).map((a) =>
      a.selector ?? a.selectors?.[0]
    );
    const anchored = first.filter((s) => s?.childOf?.text !== undefined).length;
    return `${heuristics} ${anchored} of ${first.length} row-anchored`;
  };
  console.log(`long list: ${written("v1")}, ${written("v2")}`);
}
Deno.bench({
  name: `optimize: web long list, ${LIST_CLICKS} clicks in ${LIST_ROWS} rows, heuristics v1`,
  group: "list",
  baseline: true,
  n: 10,
  fn() {
    const r = optimize(list.events, list.screens, { tableEngine: "wasm", heuristics: "v1" });
    sink ^= r.explain.length;
  },
});
Deno.bench({
  name: `optimize: web long list, ${LIST_CLICKS} clicks in ${LIST_ROWS} rows, heuristics v2`,
  group: "list",
  n: 10,
  fn() {
    const r = optimize(list.events, list.screens, { tableEngine: "wasm", heuristics: "v2" });
    sink ^= r.explain.length;
  },
});
globalThis.addEventListener("unload", () => {
  if (sink === 0.5) console.log(sink);
});
