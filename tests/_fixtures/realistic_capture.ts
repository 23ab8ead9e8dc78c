/**
 * A realistic long capture for the benchmarks: `n` actions, each with its own real-size screen
 * made from a corpus dump (Google Tasks, 79 KB, 163 nodes, by default) by varying its texts (a
 * per-action suffix) and its bounds (a per-action vertical shift), so no two screens share a
 * blob, as on a real long session. Actions cycle through taps on clickable nodes, reads and
 * assertions of texts and scrolls, under NL steps every five actions. Not a test itself.
 *
 * @module
 */
import { parseAndroid } from "../../engine/screens/parse_android.ts";
import type { UiNode } from "../../engine/screens/ui_node.ts";

const CORPUS = new URL("../../../shared/corpus/android/", import.meta.url);

/** Options of {@linkcode realisticCapture}. */
export interface RealisticOptions {
  /** Actions (default 1,000). */
  actions?: number;
  /** Corpus dump file name (default the Google Tasks list). */
  dump?: string;
}

function walk(n: UiNode, out: UiNode[]): UiNode[] {
  out.push(n);
  for (const c of n.children) walk(c, out);
  return out;
}

/**
 * Builds the capture's JSON text.
 *
 * @param options how many actions, which dump
 * @returns the `cairn.capture/v1` text (each hierarchy inline)
 */
export function realisticCapture(options: RealisticOptions = {}): string {
  const n = options.actions ?? 1000;
  const xml = Deno.readTextFileSync(
    new URL(options.dump ?? "uiautomator_google_tasks_list.xml", CORPUS),
  );
  const screen = parseAndroid(xml);
  const nodes = walk(screen.root, []).filter((x) => x.bounds.w > 20 && x.bounds.h > 20);
  const taps = nodes.filter((x) => x.clickable);
  const texts = nodes.filter((x) => x.text !== undefined && /\S/.test(x.text));
  if (taps.length === 0 || texts.length === 0) throw new Error("dump has no tap or text target");
  const center = (x: UiNode, dy: number) => ({
    x: Math.round(x.bounds.x + x.bounds.w / 2),
    y: Math.round(x.bounds.y + x.bounds.h / 2) + dy,
  });
  const actions: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const dy = i % 9; // bounds shift: every screen distinct, points stay inside
    const suffix = ` ${i}`;
    const varied = xml
      .replace(/text="([^"]+)"/g, (_, t) => `text="${t}${suffix}"`)
      .replace(
        /bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/g,
        (_, x1, y1, x2, y2) => `bounds="[${x1},${+y1 + dy}][${x2},${+y2 + dy}]"`,
      );
    const base: Record<string, unknown> = { viewHierarchy: varied };
    if (i % 5 === 0) base.nlStep = `Step ${i / 5 + 1}: check the task list`;
    const kind = i % 5;
    if (kind === 0 || kind === 3) {
      const t = taps[(i * 7) % taps.length]!;
      actions.push({ action: "tap", coordinates: center(t, dy), ...base });
    } else if (kind === 1) {
      const t = texts[(i * 3) % texts.length]!;
      actions.push({
        action: "readText",
        coordinates: center(t, dy),
        value: `${t.text}${suffix}`,
        ...base,
      });
    } else if (kind === 2) {
      const t = texts[(i * 5) % texts.length]!;
      actions.push({
        action: "assertText",
        coordinates: center(t, dy),
        expected: `${t.text}${suffix}`,
        ...base,
      });
    } else {
      actions.push({
        action: "scroll",
        coordinates: { x: 800, y: 1200 + dy },
        direction: "down",
        ...base,
      });
    }
  }
  return JSON.stringify({
    format: "cairn.capture/v1",
    platform: "android",
    prompt: "Check the task list",
    actions,
  });
}
