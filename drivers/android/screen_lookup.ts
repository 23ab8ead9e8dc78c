/**
 * Answers Android replay lookups (`id`, `accessibility id`, `-android uiautomator`) against a
 * captured screen, with UiAutomator2's matching rules, instead of asking a device: a trail's
 * selectors can be checked against the screens of its capture (uniqueness, dry runs) and the
 * playback cascade can run offline through {@linkcode ScreenFinder}.
 *
 * Exact properties go through the screen table's predicate search (the WASM hot path);
 * `…Matches`/`…Contains`/`…StartsWith` methods filter those candidates in TS.
 * `childSelector(new UiSelector()…)` matches the strict descendants of the parent's matches,
 * as UiAutomator searches under the parent; a selector it cannot read is a `SyntaxError`, which
 * the playback cascade reports as an invalid selector, never as 0 matches. A row-anchored lookup
 * (`-cairn row anchored`, a trail's text-only `childOf`) keeps the UiSelector's matches that are
 * the only one in their nearest ancestor showing the row's text, as the web player does.
 *
 * @module
 */
import { type NodePredicate, ScreenTable } from "../../engine/screens/mod.ts";
import type { Screen, UiNode } from "../../engine/screens/mod.ts";
import type { FindQuery, FoundElement } from "../driver.ts";
import { ANDROID_ROW_ANCHORED } from "../../engine/playback/mod.ts";
import { matchAndroidAnchored } from "../../engine/optimizer/mod.ts";

type Flag = keyof NonNullable<NodePredicate["flags"]>;
const FLAG_METHODS: ReadonlySet<string> = new Set([
  "clickable",
  "enabled",
  "focused",
  "checked",
  "checkable",
  "selected",
  "scrollable",
]);
const EXACT: Readonly<Record<string, keyof NodePredicate>> = {
  text: "text",
  description: "contentDescription",
  resourceId: "resourceId",
  className: "className",
};

/** At most this many matches of one lookup are returned (a device driver describes 20). */
export const MAX_MATCHES = 64;

/** One method call of a `new UiSelector()…` chain; `childSelector` takes a nested chain. */
export interface Call {
  name: string;
  arg: string | number | boolean | Call[];
}

/** Methods whose argument is a nested `new UiSelector()…` chain. */
const NESTED: ReadonlySet<string> = new Set(["childSelector"]);

/**
 * Reads a UiSelector chain (`new UiSelector().text("OK").instance(1)`), with nested chains
 * for `childSelector(new UiSelector()…)`.
 *
 * @param source the selector
 * @returns the calls in order
 * @throws {SyntaxError} when it is not a plain UiSelector chain (naming the column)
 * @example
 * ```ts
 * const calls = parseUiSelector('new UiSelector().className("android.widget.Button").instance(2)');
 * if (calls.length !== 2 || calls[1]!.arg !== 2) throw new Error();
 * const scoped = parseUiSelector('new UiSelector().description("Row").childSelector(new UiSelector().text("Star"))');
 * if (!Array.isArray(scoped[1]!.arg) || scoped[1]!.arg[0]!.arg !== "Star") throw new Error();
 * ```
 */
export function parseUiSelector(source: string): Call[] {
  const text = source.trim().replace(/;$/, "");
  const fail = (at: number, expected: string): never => {
    throw new SyntaxError(
      `Cannot read UiSelector ${JSON.stringify(source)} at column ${at + 1}: expected ${expected}`,
    );
  };
  const NEW = /\s*new\s+UiSelector\(\s*\)/y;
  const CALL = /\s*\.(\w+)\(\s*/y;
  const SCALAR = /("(?:[^"\\]|\\.)*"|-?\d+|true|false)\s*\)/y;
  const CLOSE = /\s*\)/y;
  /** A chain from `at`; `nested` requires the `new UiSelector()` start. */
  const chain = (at: number, nested: boolean): [Call[], number] => {
    NEW.lastIndex = at;
    if (NEW.exec(text)) at = NEW.lastIndex;
    else if (nested) fail(at, "new UiSelector()");
    const calls: Call[] = [];
    for (;;) {
      CALL.lastIndex = at;
      const m = CALL.exec(text);
      if (!m) break;
      const name = m[1]!;
      at = CALL.lastIndex;
      if (NESTED.has(name)) {
        const [inner, next] = chain(at, true);
        if (inner.length === 0) fail(next, `a method call in ${name}(new UiSelector()…)`);
        CLOSE.lastIndex = next;
        if (!CLOSE.exec(text)) fail(next, `")" closing ${name}(`);
        calls.push({ name, arg: inner });
        at = CLOSE.lastIndex;
        continue;
      }
      SCALAR.lastIndex = at;
      const v = SCALAR.exec(text);
      if (!v) fail(at, `a string, integer or boolean argument to ${name}()`);
      const raw = v![1]!;
      const arg = raw.startsWith('"')
        ? unquote(raw)
        : raw === "true"
        ? true
        : raw === "false"
        ? false
        : Number(raw);
      calls.push({ name, arg });
      at = SCALAR.lastIndex;
    }
    return [calls, at];
  };
  const [calls, end] = chain(0, false);
  if (calls.length === 0 || end !== text.length) {
    fail(end, 'new UiSelector().method("value")…');
  }
  return calls;
}

function unquote(raw: string): string {
  let out = "";
  for (let i = 1; i < raw.length - 1; i++) {
    const c = raw[i]!;
    if (c === "\\") {
      const n = raw[++i]!;
      out += n === "n" ? "\n" : n === "t" ? "\t" : n;
    } else out += c;
  }
  return out;
}

/** A Java regex as UiAutomator applies it (whole-string match; `(?i)` prefix = ignore case). */
function javaRegex(src: string): RegExp {
  const i = src.startsWith("(?i)");
  return new RegExp(`^(?:${i ? src.slice(4) : src})$`, i ? "is" : "s");
}

/** Node indices of a screen that an Android lookup matches. */
export class AndroidScreenLookup {
  readonly table: ScreenTable;
  readonly #packages: string[];

  /**
   * @param screen a parsed Android screen, or its table
   */
  constructor(screen: Screen | ScreenTable) {
    this.table = screen instanceof ScreenTable ? screen : ScreenTable.from(screen);
    const pkgs = new Set<string>();
    for (let i = 0; i < this.table.size; i++) {
      const p = this.table.node(i).attrs?.package;
      if (p) pkgs.add(p);
    }
    this.#packages = [...pkgs];
  }

  /**
   * Resolves a lookup.
   *
   * @param query strategy and selector
   * @returns matching node indices in document order (at most {@linkcode MAX_MATCHES})
   * @throws {SyntaxError} on an unreadable UiSelector; {TypeError} on xpath or an unknown strategy
   */
  find(query: FindQuery): number[] {
    switch (query.using) {
      case "id":
        return this.#byId(query.value);
      case "accessibility id":
        return this.#all({ contentDescription: query.value });
      case "-android uiautomator":
        return this.#byUiSelector(parseUiSelector(query.value));
      case ANDROID_ROW_ANCHORED: {
        const texts = query.anchored?.texts ?? [];
        if (texts.length === 0) {
          throw new SyntaxError(`A ${ANDROID_ROW_ANCHORED} lookup needs the row's texts`);
        }
        return this.#anchored(query.anchored?.element ?? query.value, texts);
      }
      default:
        throw new TypeError(
          `Cannot resolve ${query.using} on a captured screen: use id, accessibility id, -android uiautomator or ${ANDROID_ROW_ANCHORED}`,
        );
    }
  }

  /**
   * A row-anchored lookup (`anchoredAndroidLevels` of `engine/playback/cascade.ts`, as the web
   * player's): the UiSelector's matches whose nearest ancestor showing `texts[0]` (it or a node
   * below it has that text, whitespace-normalised, ASCII case-insensitively) holds no other
   * match; each further text's nearest ancestor-or-self of the row before must hold one node
   * showing the text before it. In document order, at most {@linkcode MAX_MATCHES}.
   */
  #anchored(element: string, texts: readonly string[]): number[] {
    const table = this.table;
    const all = this.#byUiSelector(parseUiSelector(element), undefined, table.size);
    // one resolution for the player and the optimizer's uniqueness check
    return matchAndroidAnchored(table, all, texts).slice(0, MAX_MATCHES);
  }

  #all(p: NodePredicate, limit = MAX_MATCHES): number[] {
    const hits = this.table.matches(p, Math.min(limit + 1, this.table.size)).indices;
    if (hits[0] === 0) hits.shift(); // node 0 is the synthetic hierarchy root
    return hits.length > limit ? hits.slice(0, limit) : hits;
  }

  #byId(value: string): number[] {
    // UiAutomator2 prefixes a bare id with the app package; Compose/RN test tags stay bare.
    const ids = new Set([value]);
    if (!value.includes(":id/")) {
      for (const p of this.#packages) ids.add(`${p}:id/${value}`);
      ids.add(`android:id/${value}`);
    }
    if (ids.size === 1) return this.#all({ resourceId: value });
    const hits = new Set<number>();
    for (const id of ids) {
      if (this.table.count({ resourceId: id }) === 0) continue; // a count is ~3x cheaper
      for (const i of this.#all({ resourceId: id })) hits.add(i);
    }
    return [...hits].sort((a, b) => a - b);
  }

  /**
   * The nodes a chain matches, in document order. Under `scopes` (the matches of an enclosing
   * chain) only their strict descendants count, as UiAutomator's `childSelector` searches under
   * the parent's match; `.instance(n)` picks the n-th of this chain's own matches, and a
   * `childSelector` of this chain then matches among their descendants (the last one given
   * counts, as in UiSelector).
   */
  #byUiSelector(
    calls: readonly Call[],
    scopes?: readonly number[],
    max: number = MAX_MATCHES,
  ): number[] {
    let child: Call[] | undefined;
    const own: Call[] = [];
    for (const c of calls) {
      if (Array.isArray(c.arg)) child = c.arg;
      else own.push(c);
    }
    // A parent's matches are all needed (its children are searched under each of them).
    const limit = child === undefined ? max : this.table.size;
    let hits: number[];
    if (scopes === undefined) hits = this.#byCalls(own, undefined, limit, true);
    else {
      const under = new Set<number>();
      for (const scope of scopes) {
        for (const i of this.#byCalls(own, scope, this.table.size, false)) under.add(i);
      }
      hits = [...under].sort((a, b) => a - b);
      const instance = own.findLast((c) => c.name === "instance");
      if (instance !== undefined) {
        const one = hits[Number(instance.arg)];
        hits = one === undefined ? [] : [one];
      } else if (hits.length > limit) hits = hits.slice(0, limit);
    }
    if (child === undefined || hits.length === 0) return hits;
    const found = this.#byUiSelector(child, hits, max);
    return found.length > max ? found.slice(0, max) : found;
  }

  /** The matches of one chain's own calls (no `childSelector`), at most `limit`. */
  #byCalls(
    calls: readonly Call[],
    scope: number | undefined,
    limit: number,
    withInstance: boolean,
  ): number[] {
    const predicate: NodePredicate = {};
    const flags: Partial<Record<Flag, boolean>> = {};
    const filters: ((n: UiNode) => boolean)[] = [];
    let instance: number | undefined;
    let index: number | undefined;
    for (const { name, arg } of calls) {
      const s = String(arg);
      const exact = EXACT[name];
      if (exact) (predicate as Record<string, unknown>)[exact] = s;
      else if (FLAG_METHODS.has(name)) flags[name as Flag] = arg === true;
      else if (name === "instance") instance = withInstance ? Number(arg) : undefined;
      else if (name === "index") index = Number(arg);
      else {
        const field = /^text/.test(name)
          ? "text"
          : /^description/.test(name)
          ? "contentDescription"
          : /^resourceId/.test(name)
          ? "resourceId"
          : /^className/.test(name)
          ? "className"
          : undefined;
        const kind = /Matches$/.test(name)
          ? "matches"
          : /Contains$/.test(name)
          ? "contains"
          : /StartsWith$/.test(name)
          ? "startsWith"
          : undefined;
        if (!field || !kind) throw new SyntaxError(`Cannot resolve UiSelector method ${name}()`);
        const get = (n: UiNode) => (n[field as "text"] ?? "") as string;
        if (kind === "matches") {
          const re = javaRegex(s);
          filters.push((n) => re.test(get(n)));
        } else if (kind === "contains") filters.push((n) => get(n).includes(s));
        else filters.push((n) => get(n).startsWith(s));
      }
    }
    if (Object.keys(flags).length > 0) predicate.flags = flags;
    if (scope !== undefined) predicate.descendantsOf = scope;
    if (index !== undefined) {
      const want = String(index);
      filters.push((n) => n.attrs?.index === want);
    }
    // Post-filters need every candidate; `.instance(n)` needs only the first n + 1.
    let hits = this.#all(
      predicate,
      filters.length > 0 ? this.table.size : instance !== undefined ? instance + 1 : limit,
    );
    if (filters.length > 0) {
      hits = hits.filter((i) => {
        const n = this.table.node(i);
        return filters.every((f) => f(n));
      });
      if (instance === undefined && hits.length > limit) hits = hits.slice(0, limit);
    }
    if (instance === undefined) return hits;
    const one = hits[instance];
    return one === undefined ? [] : [one];
  }
}

/**
 * A `Driver.find`-shaped finder over a captured screen: lets the playback cascade resolve
 * Android selectors without a device (dry runs, benchmarks).
 */
export class ScreenFinder {
  readonly lookup: AndroidScreenLookup;

  /** @param screen the captured screen */
  constructor(screen: Screen | ScreenTable) {
    this.lookup = new AndroidScreenLookup(screen);
  }

  /**
   * @param query strategy and selector
   * @returns the elements found, as a driver reports them
   */
  find(query: FindQuery): Promise<FoundElement[]> {
    try {
      return Promise.resolve(this.findSync(query));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * @param query strategy and selector
   * @returns the elements found
   */
  findSync(query: FindQuery): FoundElement[] {
    return this.lookup.find(query).map((i) => {
      const n = this.lookup.table.node(i);
      return {
        bounds: n.bounds,
        visible: n.visible,
        enabled: n.enabled,
        handle: String(i),
        ...(n.text ? { text: n.text } : {}),
      };
    });
  }
}
