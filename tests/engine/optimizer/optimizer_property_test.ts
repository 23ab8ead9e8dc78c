import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { resolveSelector } from "../../../engine/optimizer/selector_match.ts";
import { ScreenTable } from "../../../engine/screens/screen_table.ts";
import type { Selector, SelectorMode, TrailAction } from "../../../engine/trail/trail.ts";
import { projectTrail } from "../../../engine/optimizer/trail_projection.ts";
import { makeNode, type Screen, type UiNode, walk } from "../../../engine/screens/ui_node.ts";
import { buildCapture, type ScriptAction } from "../../_fixtures/optimizer_support.ts";

/** The shared corpus: next to the checkout, else at its home on these machines. */
const CORPUS =
  [new URL("../../../../shared/corpus", import.meta.url).pathname, "/work/shared/corpus"]
    .find((p) => {
      try {
        return Deno.statSync(p).isDirectory;
      } catch {
        return false;
      }
    }) ?? "../shared/corpus (missing)";
const POINTS_PER_SCREEN = 40;
const RANDOM_TREES = 150;

async function corpusScreens(): Promise<[string, Screen][]> {
  const out: [string, Screen][] = [];
  for (const dir of ["android", "ios"]) {
    for await (const f of Deno.readDir(`${CORPUS}/${dir}`)) {
      if (!f.isFile) continue;
      const text = await Deno.readTextFile(`${CORPUS}/${dir}/${f.name}`);
      out.push([`${dir}/${f.name}`, parseHierarchy(text)]);
    }
  }
  return out.sort(([a], [b]) => (a < b ? -1 : 1));
}

/** Taps and reads at the centres of a spread of visible nodes of a screen. */
function script(screen: Screen): ScriptAction[] {
  const nodes = [...walk(screen.root)].map(([n]) => n)
    .filter((n) => n.visible && n.bounds.w > 1 && n.bounds.h > 1);
  const step = Math.max(1, Math.floor(nodes.length / POINTS_PER_SCREEN));
  const out: ScriptAction[] = [];
  for (let i = 0; i < nodes.length && out.length < POINTS_PER_SCREEN; i += step) {
    const b = nodes[i]!.bounds;
    const point = { x: Math.floor(b.x + b.w / 2), y: Math.floor(b.y + b.h / 2) };
    const kind = out.length % 4 === 3 ? "readText" : "tap";
    out.push({
      step: `Action ${out.length + 1}`,
      screen,
      kind,
      point,
      ...(kind === "readText" ? { value: "v" } : {}),
    });
  }
  return out;
}

function selectorsOf(a: TrailAction): Selector[] {
  return a.selectors ?? (a.selector ? [a.selector] : []);
}

function inSubtree(t: ScreenTable, root: number, i: number): boolean {
  return i >= root && i < t.subtreeEnd(root);
}

/** Every chosen selector resolves uniquely to the target node (or, for a label, inside it). */
function checkScreen(name: string, screen: Screen): number {
  let checked = 0;
  const table = ScreenTable.from(screen);
  const { events, screens } = buildCapture(screen.platform, script(screen));
  for (const mode of ["strict", "flexible", "adaptive"] as SelectorMode[]) {
    const p = projectTrail(events, { screens, mode });
    const again = projectTrail(events, { screens, mode });
    assertEquals(again.yaml, p.yaml, `${name} ${mode}: projecting twice differs`);
    for (const e of p.explain) {
      if (!e.written || !e.target) continue;
      const target = e.target.node;
      for (const sel of selectorsOf(e.written)) {
        if (mode === "strict") {
          assert(
            sel.text === undefined && sel.xy === undefined,
            `${name}: strict emitted ${JSON.stringify(sel)}`,
          );
        }
        const got = resolveSelector(table, sel);
        assert(
          got >= 0,
          `${name} ${mode} action ${e.action}: ${JSON.stringify(sel)} is not unique`,
        );
        checked++;
        // A point goes to the interactive node drawn on top there (v2's Android and iOS tap
        // target: clickable, or a labelled element of a typeless iOS tree), which may be drawn
        // over a deeper node of another branch (a field over its floating label).
        const onTop = sel.xy !== undefined &&
          table.hitTestTop({ x: sel.xy[0], y: sel.xy[1] }, { interactive: true }) === target;
        assert(
          inSubtree(table, target, got) || onTop,
          `${name} ${mode} action ${e.action}: ${
            JSON.stringify(sel)
          } resolves to ${got}, target ${target}`,
        );
      }
    }
  }
  return checked;
}

Deno.test("projectTrail() on corpus screens: unique selectors on the hit node, strict without text or xy, stable bytes", async () => {
  const all = await corpusScreens();
  assert(all.length >= 30, `only ${all.length} corpus screens`);
  let checked = 0;
  for (const [name, screen] of all) checked += checkScreen(name, screen);
  assert(checked >= 2000, `only ${checked} selectors checked`);
});

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

const IDS = ["save", "row", "title", ":r1:", "ember42", "a1b2c3d4e5f6a7", "list", "item"];
const TEXTS = ["OK", "Cancel", "Save", "1", "Apples", "Total"];
const CLASSES = ["android.widget.TextView", "android.widget.Button", "android.view.ViewGroup"];

function randomTree(rand: () => number): UiNode {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const build = (x: number, y: number, w: number, h: number, depth: number): UiNode => {
    const kids: UiNode[] = [];
    const n = depth < 4 && w > 40 && h > 40 ? Math.floor(rand() * 4) : 0;
    for (let i = 0; i < n; i++) {
      const ch = Math.floor(h / n);
      kids.push(build(x + 5, y + i * ch + 2, w - 10, ch - 4, depth + 1));
    }
    return makeNode({
      className: pick(CLASSES),
      bounds: { x, y, w, h },
      clickable: rand() < 0.4,
      children: kids,
      ...(rand() < 0.4 ? { resourceId: pick(IDS) } : {}),
      ...(rand() < 0.4 ? { text: pick(TEXTS) } : {}),
      ...(rand() < 0.15 ? { contentDescription: pick(TEXTS) } : {}),
    });
  };
  return build(0, 0, 1000, 2000, 0);
}

Deno.test(`projectTrail() on ${RANDOM_TREES} random trees: unique selectors on the hit node, strict without text or xy, stable bytes`, () => {
  const rand = prng(20260309);
  let checked = 0;
  for (let i = 0; i < RANDOM_TREES; i++) {
    const root = randomTree(rand);
    const screen: Screen = {
      platform: "android",
      format: "uiautomator2",
      root,
      width: 1000,
      height: 2000,
    };
    checked += checkScreen(`random tree ${i}`, screen);
  }
  assert(checked >= 1000, `only ${checked} selectors checked`);
});
