/**
 * A web capture of a long list, built in memory for the optimizer bench: `tests/testdata/web/
 * plants.html` (`?rows=N`), a `<ul>` of rows `<li><span>name</span><span>count</span>
 * <button>Add</button><button>Remove</button></li>` whose buttons are the same in every row and
 * whose names differ only in the row's text. The hierarchy has the shape a real Chromium capture
 * of that page has (`tests/engine/optimizer/optimizer_long_list_test.ts` holds the two equal): the list item keeps
 * its CSS path, its spans dissolve into text nodes, each button holds its label's text node.
 *
 * @module
 */
import type { NewEvent } from "../../events/schemas.ts";
import {
  type ChromeHierarchy,
  chromeHierarchyToScreen,
  parseChromeHierarchy,
} from "../../engine/screens/chrome_hierarchy.ts";
import type { Screen } from "../../engine/screens/ui_node.ts";

/** The page's url path under Cairn's test server. */
export const LONG_LIST_PAGE = "plants.html";

const ROW_TOP = 80; // the first row's top, below the heading
const ROW_H = 29;
// The same lists as plants.html: 20 × 25 = 500 distinct names.
const ADJECTIVES = [
  "Golden",
  "Silver",
  "Dwarf",
  "Giant",
  "Weeping",
  "Creeping",
  "Variegated",
  "Spotted",
  "Velvet",
  "Royal",
  "Desert",
  "Alpine",
  "Marsh",
  "Coastal",
  "Twisted",
  "Feathered",
  "Crimson",
  "Blue",
  "Snowy",
  "Wild",
];
const PLANTS = [
  "Fern",
  "Cactus",
  "Ivy",
  "Orchid",
  "Palm",
  "Fig",
  "Aloe",
  "Begonia",
  "Calathea",
  "Peperomia",
  "Pothos",
  "Sage",
  "Yucca",
  "Agave",
  "Jade",
  "Lily",
  "Maple",
  "Moss",
  "Philodendron",
  "Basil",
  "Thyme",
  "Laurel",
  "Juniper",
  "Heather",
  "Clover",
];

/** The most rows the page has distinct names for. */
export const MAX_ROWS = ADJECTIVES.length * PLANTS.length;

/**
 * Row `r`'s text (0-based), as plants.html writes it.
 *
 * @param r the row
 * @returns its name
 * @example
 * ```ts
 * if (plantName(0) !== "Golden Fern" || plantName(21) !== "Silver Cactus") throw new Error();
 * ```
 */
export function plantName(r: number): string {
  return `${ADJECTIVES[r % ADJECTIVES.length]} ${PLANTS[Math.floor(r / ADJECTIVES.length)]}`;
}

/**
 * The joined Chrome hierarchy (`cairn.chrome/v1`) of plants.html with `counts.length` rows.
 *
 * @param counts each row's count
 * @param scrollY the page's scroll position
 * @returns the hierarchy JSON value
 */
export function longListHierarchy(counts: readonly number[], scrollY: number): unknown {
  const nodes: Record<string, unknown>[] = [
    { role: "RootWebArea", name: "Plants", bounds: [0, 0, 1280, 800], children: [1, 3] },
    {
      role: "heading",
      name: "Plants",
      level: 1,
      tag: "h1",
      cssPath: "body > h1",
      bounds: [8, 21, 1264, 37],
      children: [2],
    },
    { role: "StaticText", name: "Plants", tag: "#text", bounds: [8, 21, 85, 36] },
  ];
  const rows: number[] = [];
  nodes.push({
    role: "list",
    tag: "ul",
    dom: { id: "list" },
    cssPath: "#list",
    bounds: [8, ROW_TOP, 1264, counts.length * ROW_H],
    children: rows,
  });
  for (const [r, count] of counts.entries()) {
    const y = ROW_TOP + r * ROW_H;
    const li = `#list > li:nth-of-type(${r + 1})`;
    const at = nodes.length;
    rows.push(at);
    const button = (name: string, nth: number, x: number, w: number, text: number) => ({
      role: "button",
      name,
      states: ["focusable"],
      tag: "button",
      cssPath: `${li} > button:nth-of-type(${nth})`,
      bounds: [x, y + 4, w, 21],
      children: [text],
    });
    nodes.push(
      {
        role: "listitem",
        level: 1,
        tag: "li",
        cssPath: li,
        bounds: [48, y, 1224, ROW_H],
        children: [at + 1, at + 2, at + 3, at + 5],
      },
      { role: "StaticText", name: plantName(r), tag: "#text", bounds: [52, y + 4, 150, 17] },
      { role: "StaticText", name: String(count), tag: "#text", bounds: [210, y + 4, 8, 17] },
      button("Add", 1, 226, 40, at + 4),
      { role: "StaticText", name: "Add", tag: "#text", bounds: [234, y + 7, 24, 15] },
      button("Remove", 2, 274, 66, at + 6),
      { role: "StaticText", name: "Remove", tag: "#text", bounds: [282, y + 7, 50, 15] },
    );
  }
  return {
    schema_version: "cairn.chrome/v1",
    url: `http://127.0.0.1:8765/${LONG_LIST_PAGE}`,
    title: "Plants",
    viewport: { width: 1280, height: 800 },
    devicePixelRatio: 1,
    scroll: { x: 0, y: scrollY },
    nodes,
  };
}

/** Options of {@linkcode makeLongListCapture}. */
export interface LongListOptions {
  /** Rows of the list (at most {@linkcode MAX_ROWS}). */
  rows: number;
  /** Clicks, each on a row picked at random, each on the screen captured just before it. */
  actions: number;
  /** Seed of the row picks. */
  seed?: number;
}

/**
 * An agent's session on the long list: every click on a row's "Add" or "Remove" (its count
 * changes, so each click has a screen of its own, scrolled to show the row), four to an NL step.
 *
 * @param options rows, clicks and seed
 * @returns the events, the screens by hash, and the row each click was on
 */
export function makeLongListCapture(
  options: LongListOptions,
): { events: NewEvent[]; screens: Map<string, Screen>; rows: number[] } {
  if (options.rows > MAX_ROWS) throw new RangeError(`rows must be at most ${MAX_ROWS}`);
  const rand = prng(options.seed ?? 500);
  const counts: number[] = new Array(options.rows).fill(0);
  const screens = new Map<string, Screen>();
  const picked: number[] = [];
  const events: NewEvent[] = [{
    type: "SessionStarted",
    data: {
      sessionId: "long-list",
      mode: "agent",
      platform: "web",
      url: `http://127.0.0.1:8765/${LONG_LIST_PAGE}`,
      viewport: { width: 1280, height: 800 },
    },
  }];
  for (let i = 0; i < options.actions; i++) {
    const r = Math.floor(rand() * options.rows);
    picked.push(r);
    const add = counts[r] === 0 || rand() < 0.6;
    if (i % 4 === 0) {
      events.push({
        type: "StepStarted",
        data: { index: i / 4, text: `${add ? "Add" : "Remove"} a ${plantName(r)}` },
      });
    }
    const top = ROW_TOP + r * ROW_H;
    const scrollY = Math.max(0, top - 400); // the row in the middle of the viewport
    const hash = (0x1000 + i).toString(16).padStart(64, "0");
    const h = longListHierarchy(counts, scrollY);
    // the first checked against the schema; the rest have its shape (validating each is slow)
    screens.set(
      hash,
      i === 0 ? parseChromeHierarchy(h) : chromeHierarchyToScreen(h as ChromeHierarchy),
    );
    events.push({
      type: "ScreenCaptured",
      data: { hierarchy: { hash, mediaType: "application/json", size: 1 }, format: "chrome" },
    });
    const id = `l${i}`;
    events.push({
      type: "ActionPerformed",
      data: {
        actionId: id,
        kind: "tap",
        source: "agent",
        point: { x: add ? 246 : 307, y: top + 14 - scrollY },
        target: { role: "button", name: add ? "Add" : "Remove" },
      },
    });
    events.push({ type: "ActionCompleted", data: { actionId: id, ok: true, durationMs: 1 } });
    counts[r] = counts[r]! + (add ? 1 : -1);
  }
  return { events, screens, rows: picked };
}

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
