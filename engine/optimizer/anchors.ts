/**
 * Web selectors the way the playback cascade looks them up in the DOM, for heuristics `v2`:
 * row anchors (`childOf: { text }`, see `textAnchors` of `engine/trail/trail.ts`), `textRegex` against
 * an element's whole text, and the patterns of texts that hold numbers.
 *
 * Chrome's accessibility tree drops the plain `div`s and `span`s that make a list row, so the
 * rows are rebuilt from the nodes' CSS paths: every prefix of a path is a DOM ancestor, and the
 * tree's ancestors above a path's `#id` anchor follow. A text node belongs to the element it is
 * the only text of, else to an element hidden inside its parent.
 *
 * @module
 */
import type { ScreenTable } from "../screens/mod.ts";
import type { Selector } from "../trail/mod.ts";
import type { UiNode } from "../screens/mod.ts";
import { escapeRegex } from "../trail/mod.ts";

/**
 * Whitespace collapsed and trimmed, as XPath's `normalize-space()`.
 *
 * @param text any text
 * @returns the text normalised
 * @example
 * ```ts
 * if (norm(" Items in\ncart: ") !== "Items in cart:") throw new Error();
 * ```
 */
export function norm(text: string): string {
  return text.replace(/[ \t\r\n]+/g, " ").trim();
}

/** ASCII case folding, as the cascade's XPath `translate()`. */
function fold(text: string): string {
  return norm(text).replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** An element the cascade would find: its key, the node standing for it, its ancestors. */
interface Owner {
  key: string;
  node: number;
  /** Strict ancestor keys, nearest first. */
  up: string[];
}

interface Dom {
  table: ScreenTable;
  /**
   * The element each node stands for (text nodes: the element holding them); a text node that
   * stands for itself (it has text siblings) gets its owner when asked, see {@linkcode ownerOf}.
   */
  owner: (Owner | undefined)[];
  /** Text nodes (DOM text): node indices, in document order. */
  texts: number[];
  /** Per text node (by its place in `texts`): its text, whitespace-normalised. */
  shown: string[];
  /** Per text node: its text folded (ASCII case, whitespace), as the cascade compares. */
  folded: string[];
  /** Folded text → the text nodes showing it (places in `texts`), for the holders. */
  showing: Map<string, number[]>;
  /** Folded text → keys of the elements holding such a text node (built when asked). */
  holders: Map<string, Set<string>>;
  /** Folded text → how many such text nodes each element holds (built when asked). */
  textCounts: Map<string, Map<string, number>>;
  /** The elements a selector picks, by the selector's JSON. */
  bases: Map<string, Owner[]>;
}

/**
 * The DOM reads of the last screens asked about, newest first. A projection goes action by
 * action, each on the screen captured before it: a read is wanted again by the next actions on
 * the same screen, rarely later. Dropping the rest at once (instead of keeping one per table for
 * the whole projection) lets them die young: kept, a long session's reads fill the old
 * generation and the collector's pauses cost more than building them again. At most
 * {@linkcode MAX_RECENT} stay alive between projections.
 */
const RECENT: Dom[] = [];
const MAX_RECENT = 4;

/** Texts as shown (whitespace-normalised) and folded: a list repeats its labels on every screen. */
const FORMS = new Map<string, readonly [shown: string, folded: string]>();
const MAX_FORMS = 50_000; // then start again: a bound on memory, not a cache policy

/** A text as shown and folded, each distinct text normalised once. */
function forms(text: string): readonly [shown: string, folded: string] {
  let f = FORMS.get(text);
  if (!f) {
    if (FORMS.size >= MAX_FORMS) FORMS.clear();
    FORMS.set(text, f = [norm(text), fold(text)]);
  }
  return f;
}

function isTextNode(n: UiNode): boolean {
  return (n.role ?? n.className) === "StaticText";
}

function isEditableNode(n: UiNode): boolean {
  return n.password || /^(textbox|searchbox|combobox)$/i.test(n.role ?? n.className) ||
    n.attrs?.editable === "true";
}

/** Strict prefixes of a CSS path, longest first (`a > b > c` → `a > b`, `a`). */
function prefixes(path: string): string[] {
  if (path.includes(">>>")) return [];
  // Where `split(" > ")` would cut: each prefix is the path up to one of those cuts.
  const cuts: number[] = [];
  for (let at = path.indexOf(" > "); at >= 0; at = path.indexOf(" > ", at + 3)) cuts.push(at);
  const out: string[] = [];
  for (let k = cuts.length - 1; k >= 0; k--) out.push(path.slice(0, cuts[k]));
  return out;
}

/**
 * Whether `path` is the parent's CSS path and one more step (`#list > li` under `#list`): then
 * its prefixes are the parent's path and the parent's prefixes, which lead the parent's `up`,
 * so its `up` is the parent's key and `up` (what merging them gives, without making a string).
 */
function extendsPath(path: string, parent: Owner): boolean {
  const key = parent.key;
  const at = key.length;
  return !key.startsWith("@") && path.length > at + 3 && path.startsWith(key) &&
    path.startsWith(" > ", at) && path.indexOf(" > ", at + 3) < 0 && !path.includes(">>>") &&
    // no " > " straddling the parent's end: `split` cuts the path where it cuts the parent
    !key.endsWith(" ") && !key.endsWith(" >") && !parent.up.includes(path);
}

/** Whether an element's key, or one of its ancestors' keys, is `key`. */
function within(o: Owner, key: string): boolean {
  return o.key === key || o.up.includes(key);
}

/** The owner of node `i` (a text node standing for itself gets its own here, once). */
function ownerOf(dom: Dom, i: number): Owner {
  let o = dom.owner[i];
  if (!o) {
    const p = ownerOf(dom, dom.table.parent(i));
    o = { key: `@t${i}`, node: i, up: [p.key, ...p.up] };
    dom.owner[i] = o;
  }
  return o;
}

/** Whether text node `i`'s element, or one of its ancestors, is `key`, without making its owner. */
function textWithin(dom: Dom, i: number, key: string): boolean {
  const o = dom.owner[i];
  if (o) return within(o, key);
  return (key.startsWith("@t") && key === `@t${i}`) ||
    within(ownerOf(dom, dom.table.parent(i)), key);
}

/**
 * The screen read as the DOM the cascade searches, once per table. A session pays it again
 * for every screen (each action has its own), so it stays linear in the nodes and light: each
 * distinct text normalised once, a parent's text children counted once, a text node's own key
 * made only when asked for, and the indexes that serve only the anchor search (which elements
 * hold a text, how many times) built for the few texts that search asks about.
 */
function domOf(table: ScreenTable): Dom {
  const cached = RECENT.find((d) => d.table === table);
  if (cached) return cached;
  const owner: (Owner | undefined)[] = new Array(table.size);
  const texts: number[] = [];
  const shown: string[] = [];
  const folded: string[] = [];
  const showing = new Map<string, number[]>();
  /** Per parent: how many of its children are text nodes that show something (-1: not counted). */
  const textKids = new Int32Array(table.size).fill(-1);
  /** Per parent: whether it is an editable field (its text is a value, not a label). */
  const editable = new Uint8Array(table.size);
  /** Parents with several text children: their texts may lie in rows the tree dropped. */
  const shared: number[] = [];
  const dom: Dom = {
    table,
    owner,
    texts,
    shown,
    folded,
    showing,
    holders: new Map(),
    textCounts: new Map(),
    bases: new Map(),
  };
  // Document order: a parent is done before its children.
  for (let i = 0; i < table.size; i++) {
    const n = table.node(i);
    const p = table.parent(i);
    if (isTextNode(n) && p >= 0) {
      if (textKids[p] === -1) {
        const pn = table.node(p);
        let count = 0;
        for (const c of pn.children) if (isTextNode(c) && forms(c.text ?? "")[0] !== "") count++;
        textKids[p] = count;
        if (count >= 2) shared.push(p);
        editable[p] = isEditableNode(pn) ? 1 : 0;
      }
      // one text: the element holding it; several: its own key, made when asked (`ownerOf`)
      if (textKids[p]! <= 1) owner[i] = owner[p] ?? ownerOf(dom, p);
      if (!editable[p] && (n.attrs?.tag === "#text" || n.attrs?.tag === undefined)) {
        const at = texts.length;
        const [s, f] = forms(n.text ?? "");
        texts.push(i);
        shown.push(s);
        folded.push(f);
        const held = n.text !== undefined ? f : forms(n.name ?? "")[1];
        if (held) {
          const list = showing.get(held);
          if (list) list.push(at);
          else showing.set(held, [at]);
        }
      }
    } else {
      const path = n.attrs?.cssPath;
      const key = path ?? `@ax${i}`;
      const parentOwner = p >= 0 ? owner[p] ?? ownerOf(dom, p) : undefined;
      let up: string[];
      if (path && parentOwner && extendsPath(path, parentOwner)) {
        // `parent > child`: the path's prefixes are the parent's path and its prefixes, which
        // lead the parent's ancestors: the same list as merging them below, without the strings
        up = [parentOwner.key, ...parentOwner.up];
      } else {
        up = path ? prefixes(path) : [];
        if (parentOwner) {
          for (const k of [parentOwner.key, ...parentOwner.up]) {
            if (k !== key && !up.includes(k)) up.push(k);
          }
        }
      }
      owner[i] = { key, node: i, up };
    }
  }
  for (const p of shared) placeInRows(dom, p);
  RECENT.unshift(dom);
  if (RECENT.length > MAX_RECENT) RECENT.pop();
  return dom;
}

/**
 * Puts the text children of `p` into the rows the accessibility tree dropped: a row of plain
 * `div`s and `span`s (`<div class=row><span>Banana</span><button>Add</button></div>`) leaves
 * its name and its button as siblings under the list, and only the button's CSS path still
 * names the row (`#list > div.row:nth-of-type(2) > button`). Between two element children in
 * document order, a text lies inside their nearest common ancestor: in the row when both are
 * the same row's. Between two rows it lies at the end of the one before or at the start of the
 * one after, and the rows' shape decides: the usual number of texts between two rows (`T + L`),
 * the texts before the first row (at least `L`) and after the last (at least `T`); when the ends
 * allow several splits (a heading in the list), the texts' lines decide (a row's name shares
 * its button's line). A gap of another size, a shape nothing decides, and rows with no text
 * between them leave the texts with `p`, as before: no row anchor rather than a wrong one.
 */
function placeInRows(dom: Dom, p: number): void {
  const { table, owner } = dom;
  const parent = owner[p];
  if (!parent || parent.key.startsWith("@")) return;
  // the children in document order: element children's owners, text children's indices
  const kids: (Owner | number)[] = [];
  const end = table.subtreeEnd(p);
  let rows = 0;
  for (let c = p + 1; c < end; c = table.subtreeEnd(c)) {
    const n = table.node(c);
    if (isTextNode(n)) {
      if (forms(n.text ?? "")[0] !== "" && owner[c] === undefined) kids.push(c);
      continue;
    }
    const o = owner[c];
    if (!o) continue;
    kids.push(o);
    if (rowBelow(o, parent.key) !== undefined) rows++;
  }
  if (rows < 2) return;
  const at = (o: Owner, row: string): Owner["up"] => o.up.slice(o.up.indexOf(row));
  const place = (i: number, up: string[]) => {
    owner[i] = { key: `@t${i}`, node: i, up };
  };
  // runs of texts and the element children around them
  const runs: { before?: Owner; after?: Owner; texts: number[] }[] = [];
  let run: number[] = [];
  let before: Owner | undefined;
  for (const k of kids) {
    if (typeof k === "number") {
      run.push(k);
      continue;
    }
    runs.push({ ...(before ? { before } : {}), after: k, texts: run });
    run = [];
    before = k;
  }
  runs.push({ ...(before ? { before } : {}), texts: run });
  const first = runs[0]!;
  const last = runs[runs.length - 1]!;
  const lead = first.after && rowBelow(first.after, parent.key) !== undefined
    ? first.texts.length
    : 0;
  const trail = last.before && rowBelow(last.before, parent.key) !== undefined
    ? last.texts.length
    : 0;
  // the gaps between two rows: their usual size sets how many texts a row has at each end
  const sizes = new Map<number, number>();
  const splits: { texts: number[]; prev?: string; next?: string; a: Owner; b: Owner }[] = [];
  for (const r of runs) {
    if (!r.before || !r.after) continue;
    const common = [r.before.key, ...r.before.up].find((k) => within(r.after!, k));
    if (common === undefined) continue;
    const prev = rowBelow(r.before, common);
    const next = rowBelow(r.after, common);
    if (prev !== undefined && prev === next) {
      for (const i of r.texts) place(i, at(r.before, prev));
      continue;
    }
    if (prev === undefined && next === undefined) continue;
    if (common !== parent.key && !common.startsWith("@")) {
      for (const i of r.texts) {
        place(i, [common, ...r.before.up.slice(r.before.up.indexOf(common) + 1)]);
      }
    }
    splits.push({
      texts: r.texts,
      ...(prev !== undefined ? { prev } : {}),
      ...(next !== undefined ? { next } : {}),
      a: r.before,
      b: r.after,
    });
    sizes.set(r.texts.length, (sizes.get(r.texts.length) ?? 0) + 1);
  }
  // the usual gap between two rows: none (no text between rows), none seen, or a tie the ends
  // do not decide leaves every text at the ends to the list
  const most = Math.max(0, ...sizes.values());
  const usual = [...sizes.keys()].filter((g) => sizes.get(g) === most);
  // as many as the ends hold decides a tie
  const gap = usual.length === 1 ? usual[0]! : usual.includes(lead + trail) ? lead + trail : 0;
  if (gap === 0) return;
  // the splits the ends allow (a text before the first row or after the last may be the list's
  // own, a heading); when several do, the one whose texts share a line with their row's
  // element, and none when the lines do not tell: a text given to the wrong row would anchor
  // the wrong row
  let L = -1;
  let best = 0;
  let tie = false;
  for (let l = Math.min(lead, gap); l >= 0 && gap - l <= trail; l--) {
    if (lead + trail === gap) {
      L = l;
      break;
    }
    let score = 0;
    for (const s of splits) {
      if (s.texts.length !== gap) continue;
      s.texts.forEach((i, k) => {
        const mine = k < gap - l ? s.a : s.b;
        const other = k < gap - l ? s.b : s.a;
        score += (sameLine(table, i, mine.node) ? 1 : 0) -
          (sameLine(table, i, other.node) ? 1 : 0);
      });
    }
    if (score > best) [L, best, tie] = [l, score, false];
    else if (score === best && best > 0) tie = true;
  }
  if (L < 0 || tie) return;
  const T = gap - L;
  for (const s of splits) {
    if (s.texts.length !== gap) continue;
    s.texts.forEach((i, k) => {
      if (k < T && s.prev !== undefined) place(i, at(s.a, s.prev));
      else if (k >= T && s.next !== undefined) place(i, at(s.b, s.next));
    });
  }
  const firstRow = first.after && rowBelow(first.after, parent.key);
  if (firstRow !== undefined && L > 0) {
    for (const i of first.texts.slice(-L)) place(i, at(first.after!, firstRow));
  }
  const lastRow = last.before && rowBelow(last.before, parent.key);
  if (lastRow !== undefined && T > 0) {
    for (const i of last.texts.slice(0, T)) place(i, at(last.before!, lastRow));
  }
}

/** Whether two nodes share a line: their boxes overlap vertically by half the smaller. */
function sameLine(table: ScreenTable, i: number, j: number): boolean {
  const a = table.node(i).bounds;
  const b = table.node(j).bounds;
  const overlap = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return overlap > 0 && overlap * 2 >= Math.min(a.h, b.h);
}

/**
 * The ancestor of `o` just below `key` that the tree dropped (a key of `o.up`), when `key` is an
 * ancestor of `o` and `o` is not its child.
 */
function rowBelow(o: Owner, key: string): string | undefined {
  const j = o.up.indexOf(key);
  return j >= 1 ? o.up[j - 1] : undefined;
}

/**
 * The text an element shows, as the cascade reads it (`innerText`, whitespace-normalised): its
 * own text, else its descendants' texts joined.
 *
 * @param table the screen
 * @param i the node
 * @returns the text ("" when it shows none)
 */
export function elementText(table: ScreenTable, i: number): string {
  const n = table.node(i);
  if (n.text !== undefined) return norm(n.text);
  let out = "";
  const end = table.subtreeEnd(i);
  for (let j = i + 1; j < end; j++) {
    const d = table.node(j);
    if (d.children.length === 0 && d.text !== undefined) out += d.text;
  }
  return norm(out);
}

function safeRegex(src: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${src})$`, "s");
  } catch {
    return undefined;
  }
}

/**
 * The elements a selector without `childOf` picks as the cascade would: exact properties, own
 * text (the element holding a text node), `textRegex` against the whole text of the deepest
 * element showing it.
 */
function baseOwners(table: ScreenTable, sel: Selector): Owner[] {
  const dom = domOf(table);
  const key = JSON.stringify(sel);
  const cached = dom.bases.get(key);
  if (cached) return cached;
  const found = findOwners(table, dom, sel);
  dom.bases.set(key, found);
  return found;
}

function findOwners(table: ScreenTable, dom: Dom, sel: Selector): Owner[] {
  const seen = new Map<string, Owner>();
  const re = sel.textRegex !== undefined ? safeRegex(sel.textRegex) : undefined;
  if (sel.textRegex !== undefined && !re) return [];
  const want = sel.text !== undefined ? norm(sel.text) : undefined;
  for (let i = 0; i < table.size; i++) {
    const n = table.node(i);
    if (sel.id !== undefined && n.resourceId !== sel.id) continue;
    if (sel.testId !== undefined && n.testId !== sel.testId) continue;
    const desc = sel.ariaLabel ?? sel.contentDescription;
    if (desc !== undefined && n.contentDescription !== desc) continue;
    if (sel.role !== undefined && (n.role ?? n.className) !== sel.role) continue;
    if (sel.name !== undefined && n.name !== sel.name) continue;
    if (sel.cssPath !== undefined && n.attrs?.cssPath !== sel.cssPath) continue;
    if (want !== undefined) {
      if (n.text === undefined || forms(n.text)[0] !== want || isEditableNode(n)) continue;
    }
    if (re) {
      if (isEditableNode(n)) continue;
      const own = n.text !== undefined ||
        n.children.some((c) => isTextNode(c) && norm(c.text ?? "") !== "");
      if (!own || !re.test(elementText(table, i))) continue;
    }
    const o = ownerOf(dom, i);
    if (!seen.has(o.key)) seen.set(o.key, o);
  }
  const list = [...seen.values()];
  if (!re) return list;
  // The deepest: an element whose descendant also matches is its container, not the match.
  const keys = new Set(list.map((o) => o.key));
  const inner = new Set<string>();
  for (const o of list) for (const k of o.up) if (keys.has(k)) inner.add(k);
  return list.filter((o) => !inner.has(o.key));
}

/** The keys of the elements holding a text node that shows `text`: empty when none does. */
function holdersOf(dom: Dom, text: string): Set<string> {
  const want = fold(text);
  let set = dom.holders.get(want);
  if (!set) {
    set = new Set();
    for (const j of dom.showing.get(want) ?? []) {
      const o = ownerOf(dom, dom.texts[j]!);
      set.add(o.key);
      for (const k of o.up) set.add(k);
    }
    dom.holders.set(want, set);
  }
  return set;
}

/** How many text nodes showing `text` lie inside `key`. */
function textCount(dom: Dom, key: string, text: string): number {
  const want = fold(text);
  let counts = dom.textCounts.get(want);
  if (!counts) {
    counts = new Map();
    for (const [j, f] of dom.folded.entries()) {
      if (f !== want) continue;
      const o = ownerOf(dom, dom.texts[j]!);
      for (const k of [o.key, ...o.up]) counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    dom.textCounts.set(want, counts);
  }
  return counts.get(key) ?? 0;
}

/**
 * The nodes a selector picks on the web as the cascade would, row anchors included (see the
 * module doc), in document order.
 *
 * @param table the screen
 * @param sel the selector (`index` picks the n-th)
 * @param anchors its row anchors (`textAnchors(sel)`), innermost first, or none
 * @returns the nodes standing for the matched elements, and how many there are
 * @example
 * ```ts
 * import { ScreenTable } from "../screens/screen_table.ts";
 * import { makeNode } from "../screens/ui_node.ts";
 * const text = (t: string) =>
 *   makeNode({ className: "StaticText", text: t, attrs: { tag: "#text" } });
 * const row = (name: string, i: number) =>
 *   makeNode({
 *     className: "listitem",
 *     attrs: { cssPath: `ul > li:nth-of-type(${i})` },
 *     children: [text(name), makeNode({ className: "button", children: [text("Add")] })],
 *   });
 * const t = ScreenTable.from({
 *   platform: "web",
 *   format: "chrome",
 *   width: 100,
 *   height: 100,
 *   root: makeNode({ className: "list", children: [row("Fern", 1), row("Cactus", 2)] }),
 * }, { engine: "reference" });
 * if (matchWeb(t, { text: "Add" }).count !== 2) throw new Error();
 * if (matchWeb(t, { text: "Add" }, ["Cactus"]).indices[0] !== 7) throw new Error();
 * ```
 */
export function matchWeb(
  table: ScreenTable,
  sel: Selector,
  anchors: readonly string[] = [],
): { indices: number[]; count: number } {
  const { childOf: _c, index, ...base } = sel;
  let owners = baseOwners(table, base);
  if (anchors.length > 0) {
    const dom = domOf(table);
    const holding = anchors.map((t) => holdersOf(dom, t));
    const inside = new Map<string, number>();
    for (const o of owners) for (const k of o.up) inside.set(k, (inside.get(k) ?? 0) + 1);
    owners = owners.filter((o) => {
      const i1 = o.up.findIndex((k) => holding[0]!.has(k));
      if (i1 < 0) return false;
      if (inside.get(o.up[i1]!) !== 1) return false;
      let at = i1;
      for (let k = 1; k < anchors.length; k++) {
        const next = o.up.findIndex((key, j) => j >= at && holding[k]!.has(key));
        if (next < 0) return false;
        if (textCount(dom, o.up[next]!, anchors[k - 1]!) !== 1) return false;
        at = next;
      }
      return true;
    });
  }
  const indices = owners.map((o) => o.node);
  if (index !== undefined) {
    const i = indices[index];
    return i === undefined ? { indices: [], count: 0 } : { indices: [i], count: 1 };
  }
  return { indices, count: indices.length };
}

/** Anchors tried per target, and pairs of them. */
const MAX_ANCHORS = 12;
const MAX_PAIRS = 60;
const MAX_ROW_HOPS = 6;
const MAX_ANCHOR_LENGTH = 60;

/**
 * Texts near a node that could anchor its row, nearest row first: DOM text with a letter and
 * no number that changes (a count, a price, a time), not the node's own. Made as they are
 * asked for: the search usually stops at the first, in the node's own row.
 *
 * @param table the screen
 * @param node the target
 * @param exclude texts that are the target's own (its label, its value)
 * @returns folded-unique texts, as shown
 */
function* anchorTexts(
  table: ScreenTable,
  node: number,
  exclude: readonly string[],
): Generator<string, void, undefined> {
  const dom = domOf(table);
  const own = ownerOf(dom, node);
  const skip = new Set(exclude.map(fold));
  const taken = new Set<string>();
  for (const row of own.up.slice(0, MAX_ROW_HOPS)) {
    for (const [j, i] of dom.texts.entries()) {
      if (taken.size >= MAX_ANCHORS) return;
      if (!textWithin(dom, i, row) || textWithin(dom, i, own.key)) continue;
      const t = dom.shown[j]!;
      const f = dom.folded[j]!;
      if (!t || taken.has(f) || skip.has(f) || t.length > MAX_ANCHOR_LENGTH) continue;
      if (!/\p{L}/u.test(t) || dynamicPattern(t) !== undefined) continue;
      taken.add(f);
      yield t;
    }
  }
}

/**
 * The row anchors that make `base` pick `node` alone: one text, else two; when rows repeat
 * exactly, the anchors that leave the fewest rows, with the node's `index` among them.
 *
 * @param table the screen
 * @param node the target
 * @param base a selector that matches the target among others
 * @param exclude the target's own texts
 * @returns the anchors, innermost first, and the index when rows repeat; undefined when none
 */
export function findAnchors(
  table: ScreenTable,
  node: number,
  base: Selector,
  exclude: readonly string[],
): { anchors: string[]; index?: number } | undefined {
  const all = matchWeb(table, base).count;
  let best: { anchors: string[]; index: number; count: number } | undefined;
  const picks = (anchors: string[]) => {
    const m = matchWeb(table, base, anchors);
    if (m.count === 1 && m.indices[0] === node) return true;
    const at = m.indices.indexOf(node);
    if (at >= 0 && m.count < all && m.count < (best?.count ?? Infinity)) {
      best = { anchors, index: at, count: m.count };
    }
    return false;
  };
  const texts: string[] = [];
  for (const t of anchorTexts(table, node, exclude)) {
    if (picks([t])) return { anchors: [t] };
    texts.push(t);
  }
  let tries = 0;
  for (const a of texts) {
    for (const b of texts) {
      if (a === b) continue;
      if (++tries > MAX_PAIRS) break;
      if (picks([a, b])) return { anchors: [a, b] };
    }
    if (tries > MAX_PAIRS) break;
  }
  return best && { anchors: best.anchors, index: best.index };
}

/**
 * Nests row anchors into a selector's `childOf` (innermost first).
 *
 * @param base the selector
 * @param anchors the texts
 * @returns `{ ...base, childOf: { text, childOf: { text } } }`
 * @example
 * ```ts
 * const s = withAnchors({ text: "View" }, ["Premium Cable", "Office Supplies"]);
 * if (s.childOf?.childOf?.text !== "Office Supplies") throw new Error();
 * ```
 */
export function withAnchors(base: Selector, anchors: readonly string[]): Selector {
  let parent: Selector | undefined;
  for (let k = anchors.length - 1; k >= 0; k--) {
    parent = parent ? { text: anchors[k]!, childOf: parent } : { text: anchors[k]! };
  }
  return parent ? { ...base, childOf: parent } : { ...base };
}

/** Words after a number that do not make it a count (`Step 2 of 3`, `2 in stock` stays). */
const NOT_COUNT = new Set(["of", "to", "in", "on", "at", "by", "for", "and", "or", "x"]);
const CURRENCY = /[$€£¥₹]\s?$/;

/**
 * A pattern for a text whose numbers change — a count (`(3)`, `2 items`), a price (`$37.50`),
 * a time (`02:55:13`) — with each such number as digits (with separators when it had them)
 * and the count's word with an optional plural `s`; other numbers (`5 Surprise`, `(3 Pack)`,
 * `iPhone 15`) stay as they are. Undefined when no number changes. With `anyText` (a value
 * read: `$12.50`, `7`) every number changes.
 * `Checkout (2 items) $37.50` → `Checkout \(\d+ items?\) \$\d[\d.,]*`.
 *
 * @param text the text as shown
 * @param anyText every number is a value (a read or an assertion on it)
 * @returns the regex source, or undefined
 * @example
 * ```ts
 * if (dynamicPattern("View cart (1)") !== "View cart \\(\\d+\\)") throw new Error();
 * if (dynamicPattern("Mini Brands (3 Pack)") !== undefined) throw new Error();
 * ```
 */
export function dynamicPattern(text: string, anyText = false): string | undefined {
  const t = norm(text);
  if (!/\d/.test(t)) return undefined;
  // Even parts are copy, odd parts numbers.
  const parts = t.split(/(\d+(?:[.,:]\d+)*)/);
  const out = parts.map(escapeRegex);
  let changed = false;
  for (let k = 1; k < parts.length; k += 2) {
    const n = parts[k]!;
    const before = parts[k - 1]!;
    const after = parts[k + 1]!;
    const word = /^ (\p{Ll}+)/u.exec(after)?.[1];
    const count = word !== undefined && !NOT_COUNT.has(word);
    const price = CURRENCY.test(before) || /^\s?(€|EUR|USD|GBP)\b/.test(after);
    const time = /^\d{1,2}(:\d{2}){1,2}$/.test(n);
    const bare = before.endsWith("(") && after.startsWith(")");
    if (!anyText && !count && !price && !time && !bare) continue;
    changed = true;
    out[k] = /[.,]/.test(n) ? "\\d[\\d.,]*" : n.split(":").map(() => "\\d+").join(":");
    if (count) {
      const stem = word!.endsWith("s") ? word!.slice(0, -1) : word!;
      out[k + 1] = ` ${escapeRegex(stem)}s?${escapeRegex(after.slice(word!.length + 1))}`;
    }
  }
  return changed ? out.join("") : undefined;
}

/** Classes that scroll even when a dump says `scrollable="false"` (a list at rest). */
const LIST_CLASS = /(RecyclerView|ListView|GridView|ScrollView)$/;

function scrollsList(n: UiNode): boolean {
  return n.scrollable || LIST_CLASS.test(n.className);
}

/** A text as the Android player compares anchors: whitespace collapsed, ASCII case folded. */
function androidKey(text: string): string {
  return text.replace(/\s+/g, " ").trim().replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** Android tables seen, and whether they are Android (a UiAutomator or Appium tree). */
const ANDROID_TABLES = new WeakMap<ScreenTable, boolean>();

/**
 * Whether a screen is an Android tree (its root a UiAutomator `hierarchy`, or its classes
 * `android.*`/`androidx.*`): there a row anchor is matched as the Android player does
 * ({@linkcode matchAndroidAnchored}), not over a rebuilt DOM.
 *
 * @param table the screen
 * @returns true for an Android tree
 */
export function isAndroidTable(table: ScreenTable): boolean {
  let known = ANDROID_TABLES.get(table);
  if (known === undefined) {
    known = table.size > 0 && table.node(0).className === "hierarchy";
    for (let i = 0; !known && i < Math.min(table.size, 8); i++) {
      known = /^androidx?\./.test(table.node(i).className);
    }
    ANDROID_TABLES.set(table, known);
  }
  return known;
}

/**
 * The nodes among `all` (a selector's matches, document order) that row anchors keep, as the
 * Android player's row-anchored lookup (`AndroidScreenLookup`, `-cairn row anchored`): a
 * match's nearest ancestor showing `anchors[0]` (it or a node below it has that text,
 * whitespace-normalised, ASCII case-insensitively) holds no other match; each further text's
 * nearest ancestor-or-self of the row before holds one node showing the text before it.
 *
 * @param table the screen
 * @param all the matches of the selector without its anchors, in document order
 * @param anchors the row texts, innermost first
 * @returns the matches kept, in document order
 * @example
 * ```ts
 * import { ScreenTable } from "../screens/screen_table.ts";
 * import { makeNode } from "../screens/ui_node.ts";
 * const row = (title: string) =>
 *   makeNode({ className: "android.widget.LinearLayout", children: [
 *     makeNode({ className: "android.widget.TextView", resourceId: "t", text: title }),
 *     makeNode({ className: "android.widget.TextView", resourceId: "amt", text: "$1" }),
 *   ] });
 * const t = ScreenTable.from(makeNode({ className: "hierarchy", children: [row("A"), row("B")] }));
 * const amounts = [3, 6];
 * if (matchAndroidAnchored(t, amounts, ["b"])[0] !== 6) throw new Error();
 * ```
 */
export function matchAndroidAnchored(
  table: ScreenTable,
  all: readonly number[],
  anchors: readonly string[],
): number[] {
  if (all.length === 0 || anchors.length === 0) return [...all];
  const countUp = (nodes: readonly number[], self: boolean): Map<number, number> => {
    const counts = new Map<number, number>();
    for (const n of nodes) {
      for (let a = self ? n : table.parent(n); a >= 0; a = table.parent(a)) {
        counts.set(a, (counts.get(a) ?? 0) + 1);
      }
    }
    return counts;
  };
  const below = countUp(all, false);
  const showing = anchors.map((t) => {
    const want = androidKey(t);
    const nodes: number[] = [];
    for (let i = 1; i < table.size; i++) {
      const text = table.node(i).text;
      if (text !== undefined && androidKey(text) === want) nodes.push(i);
    }
    return countUp(nodes, true);
  });
  const nearest = (from: number, holding: Map<number, number>): number => {
    let a = from;
    while (a >= 0 && !holding.has(a)) a = table.parent(a);
    return a;
  };
  const out: number[] = [];
  for (const m of all) {
    let row = nearest(table.parent(m), showing[0]!);
    if (row < 0 || below.get(row) !== 1) continue;
    for (let k = 1; row >= 0 && k < anchors.length; k++) {
      const outer = nearest(row, showing[k]!);
      row = outer >= 0 && showing[k - 1]!.get(outer) === 1 ? outer : -1;
    }
    if (row >= 0) out.push(m);
  }
  return out;
}

/**
 * Android: the row text that makes a repeated selector pick `node` alone (`childOf: { text }`
 * of a RecyclerView, ListView or LazyColumn row): a text shown in the node's row — the largest
 * ancestor inside the nearest scrolling one holding no other match — that is no value (no number: an amount, a time, a count
 * changes) and not the node's own; in document order (a row's title first), then two texts
 * when one is not enough. Undefined when no row text picks it (then only an index does).
 *
 * @param table the screen
 * @param node the target
 * @param all the matches of the repeated selector, document order (the node among them)
 * @param exclude the node's own texts and the values the action types, reads or asserts
 * @returns the anchors, innermost first; undefined when none
 */
export function findAndroidAnchors(
  table: ScreenTable,
  node: number,
  all: readonly number[],
  exclude: readonly string[],
): string[] | undefined {
  if (!all.includes(node) || all.length < 2) return undefined;
  const others = all.filter((i) => i !== node);
  // The list: the nearest scrolling ancestor (a RecyclerView, ListView, LazyColumn).
  let list = table.parent(node);
  while (list > 0 && !scrollsList(table.node(list))) list = table.parent(list);
  if (list <= 0) return undefined;
  // The row: the largest ancestor inside the list whose subtree holds no other match.
  let row = -1;
  for (let a = table.parent(node); a > list; a = table.parent(a)) {
    const end = table.subtreeEnd(a);
    if (others.some((o) => o > a && o < end)) break;
    row = a;
  }
  if (row < 0) return undefined;
  const skip = new Set(exclude.map(androidKey));
  const texts: string[] = [];
  const seen = new Set<string>();
  const end = table.subtreeEnd(row);
  // In document order (a row's title leads it); a clickable row's own labels count too.
  for (let i = row; i < end; i++) {
    if (i === node) continue;
    const n = table.node(i);
    const t = n.text === undefined ? "" : norm(n.text);
    if (t === "" || t.length > MAX_ANCHOR_LENGTH || !/\p{L}/u.test(t) || /\d/.test(t)) continue;
    if (isEditableNode(n) || skip.has(androidKey(t)) || seen.has(androidKey(t))) continue;
    seen.add(androidKey(t));
    texts.push(t);
  }
  const picks = (anchors: string[]) => {
    const m = matchAndroidAnchored(table, all, anchors);
    return m.length === 1 && m[0] === node;
  };
  for (const t of texts) if (picks([t])) return [t];
  let tries = 0;
  for (const a of texts) {
    for (const b of texts) {
      if (a === b) continue;
      if (++tries > MAX_PAIRS) return undefined;
      if (picks([a, b])) return [a, b];
    }
  }
  return undefined;
}
