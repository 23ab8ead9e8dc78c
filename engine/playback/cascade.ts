/**
 * The self-healing selector cascade as pure planning plus one resolve loop over any
 * element finder shaped like `Driver.find`.
 *
 * Web: data-testid → aria-label → role + name → id → text → class → CSS path → coordinates.
 * Android: id → content description → text → class + index → coordinates.
 *
 * A target with a `within` ancestor (a trail's `childOf`) has every level scoped under it, as
 * Playwright chains locators: no level looks outside it, so healing never leaves the scope.
 *
 * A level only counts when it matches exactly one visible element: an ambiguous level is
 * passed over, never acted on. A level with an index (a trail's `index`) takes the n-th visible
 * match in document order, and counts as not found when there are fewer. A trail's ordered
 * `selectors:` list is planned entry by entry, in its order, on both platforms. Text is matched
 * exactly first, then whitespace-normalised, then case-insensitively — never as a substring.
 * With `confirm`, the winning level's element is checked against the later identity levels, as
 * far as needed: two levels that pick different elements make the resolution `ambiguous`, and
 * the player acts on neither.
 *
 * This module is the resolve loop; the levels are planned in `cascade_levels.ts` (shared),
 * `cascade_web.ts` (with the lookup strings of `web_queries.ts`) and `cascade_android.ts`, and
 * re-exported here.
 *
 * @module
 */
import { anchoredPattern } from "./cascade_web.ts";
import type { CascadeLevel, ElementFinder, LookupMatch, Strategy } from "./cascade_levels.ts";

export * from "./cascade_levels.ts";
export * from "./cascade_web.ts";
export * from "./web_queries.ts";
export * from "./cascade_android.ts";

/** One level tried: how many visible elements it matched (and how many in all). */
export interface TriedLevel {
  strategy: Strategy;
  selector: string;
  matches: number;
  /**
   * How many visible elements a level refused by the verifier matched (`matches` stays 0: it
   * picked none), for the failure message.
   */
  found?: number;
  hidden?: number;
  /**
   * Why the level picked nothing though it matched: the verifier refused its one match, or its
   * index needs more matches than there are (`index 1 needs 2 matches`).
   */
  refused?: string;
  /** The finder could not read a lookup of the level (an invalid selector), and why. */
  invalid?: string;
}

/**
 * Whether a lookup failed because the finder cannot read the selector: Appium's `invalid
 * selector` (a `DriverError` coded `invalid_selector`) or a captured screen's `SyntaxError`.
 */
function invalidSelector(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (!(err instanceof SyntaxError) && code !== "invalid_selector") return undefined;
  const message = err instanceof Error ? err.message : String(err);
  const line = message.replace(/\s+/g, " ").trim();
  return line.length > 200 ? `${line.slice(0, 197)}...` : line;
}

/**
 * The levels tried, one clause each, for a failure message: `~Task 5 >> id=star → 0`,
 * `id=field → 3`, `text=/(/ → invalid selector (…why…)`, `id=field[1] → 1 (index 1 needs 2
 * matches)`.
 *
 * @param tried the levels of a resolution
 * @returns the clauses joined by `; `
 * @example
 * ```ts
 * const line = describeTried([{ strategy: "id", selector: "id=a", matches: 2 }, { strategy: "text", selector: "text=/(/", matches: 0, invalid: "bad regex" }]);
 * if (line !== "id=a → 2; text=/(/ → invalid selector (bad regex)") throw new Error(line);
 * ```
 */
export function describeTried(tried: readonly TriedLevel[]): string {
  return tried.map((t) =>
    `${t.selector} → ${
      t.invalid !== undefined
        ? `invalid selector (${t.invalid})`
        : t.refused !== undefined
        ? `${t.found ?? t.matches} (${t.refused})`
        : t.matches
    }`
  ).join("; ");
}

/**
 * The error code a finder throws when the ancestor of a scoped lookup ({@linkcode WEB_WITHIN})
 * matches no element: its message names the ancestor, and the level reports it.
 */
export const SCOPE_NOT_FOUND = "scope_not_found";

/** Levels that match by position, not identity: their one match is verified before use. */
export const WEAK: ReadonlySet<Strategy> = new Set(["css_path", "xpath"]);

/**
 * Whether a level picks its element by position among several: an index (`nth`) or a class +
 * index. Used as a fallback (a level past the first), its match is verified before use: a field
 * inserted above moves the n-th match onto another element.
 *
 * @param level a cascade level
 * @returns true for an indexed or class + index level
 * @example
 * ```ts
 * if (!isPositional({ strategy: "test_id", selector: "s", queries: [], nth: 1 })) throw new Error();
 * if (isPositional({ strategy: "test_id", selector: "s", queries: [] })) throw new Error();
 * ```
 */
export function isPositional(level: CascadeLevel): boolean {
  return level.nth !== undefined || level.strategy === "class_index";
}

/**
 * Levels that name an element by what it is (a test id, an aria-label or content description,
 * a role and name, an id, a text), not by where it is: their one match is evidence of identity,
 * so a later one of them that picks another element than the winning level contradicts it.
 * CSS (a Recorder's own CSS may be positional), CSS paths, XPaths, classes + index and
 * coordinates are no such witness.
 */
export const IDENTITY: ReadonlySet<Strategy> = new Set([
  "test_id",
  "aria_label",
  "role_name",
  "id",
  "text",
  "content_description",
]);

/**
 * Whether two matches are one element: the same handle, one handle a CSS path inside the other
 * (a label's `<span>` inside its `<button>`), or one box inside the other (a device's element
 * ids differ between lookups; a text lookup finds the deepest element showing it).
 *
 * @param a one match
 * @param b another match
 * @returns true when they may be one element
 * @example
 * ```ts
 * const button = { bounds: { x: 0, y: 0, w: 80, h: 20 }, visible: true, enabled: true, handle: "form > button" };
 * const label = { bounds: { x: 10, y: 2, w: 40, h: 16 }, visible: true, enabled: true, handle: "form > button > span" };
 * const other = { bounds: { x: 100, y: 0, w: 80, h: 20 }, visible: true, enabled: true, handle: "form > a" };
 * if (!sameElement(button, label) || sameElement(button, other)) throw new Error();
 * ```
 */
export function sameElement(a: LookupMatch, b: LookupMatch): boolean {
  if (a.handle !== undefined && b.handle !== undefined) {
    if (a.handle === b.handle) return true;
    const inside = (x: string, y: string) => x.startsWith(`${y} > `) || x.startsWith(`${y} >>> `);
    if (inside(a.handle, b.handle) || inside(b.handle, a.handle)) return true;
  }
  const holds = (o: LookupMatch["bounds"], i: LookupMatch["bounds"]) =>
    i.x >= o.x - 1 && i.y >= o.y - 1 && i.x + i.w <= o.x + o.w + 1 && i.y + i.h <= o.y + o.h + 1;
  return holds(a.bounds, b.bounds) || holds(b.bounds, a.bounds);
}

/** Two levels of one chain that picked different elements: the player acts on neither. */
export interface Ambiguity {
  /** The level that picked first, and its element. */
  level: CascadeLevel;
  element: LookupMatch;
  /** The later identity level that picked another element, and that element. */
  other: CascadeLevel;
  otherElement: LookupMatch;
}

/** The outcome of a resolve: the element found and the level, or what every level matched. */
export interface Resolution {
  level?: CascadeLevel;
  element?: LookupMatch;
  /** True when a level past the first found it (status `healed`). */
  healed: boolean;
  /** The level's position in the cascade (0: the first selector), when one found it. */
  position?: number;
  /**
   * With `confirm`: the winning level's element was contradicted by a later identity level
   * (`element` and `level` are then unset: nothing may be acted on).
   */
  ambiguous?: Ambiguity;
  tried: TriedLevel[];
  /** Some level matched only hidden elements. */
  sawHidden: boolean;
  /**
   * Levels none of whose lookups the finder could read (every one an invalid selector): they
   * can never match, so looking again while the page settles is pointless.
   */
  unreadable: CascadeLevel[];
}

/** What a level makes of one lookup's elements (see {@linkcode pickMatch}). */
export interface LevelMatch<M extends LookupMatch = LookupMatch> {
  /** The visible elements the lookup found (after a pattern filter), in document order. */
  visible: M[];
  /** How many it found that are hidden or have no size. */
  hidden: number;
  /** The element the level picks, when it picks one. */
  element?: M;
  /** The level has an index and fewer visible matches than it needs: not found, why. */
  short?: string;
}

/**
 * The element a level picks from what one of its lookups found: the one visible match, or with
 * an index (`nth`) the n-th visible match in document order. An index with fewer matches than it
 * needs picks nothing (`short`): the recorded n-th element is not there, and another match must
 * not stand in for it. Several matches without an index pick nothing (ambiguous).
 *
 * @param level the level (its `nth` and `pattern`)
 * @param found what the lookup returned
 * @returns the visible matches, the hidden count and the element picked
 * @example
 * ```ts
 * const box = { x: 0, y: 0, w: 5, h: 5 };
 * const one = [{ bounds: box, visible: true, enabled: true }];
 * const level = { strategy: "test_id" as const, selector: "s", queries: [], nth: 1 };
 * if (pickMatch(level, one).element !== undefined) throw new Error("index 1 of one match");
 * if (pickMatch({ ...level, nth: 0 }, one).element !== one[0]) throw new Error();
 * ```
 */
export function pickMatch<M extends LookupMatch>(
  level: CascadeLevel,
  found: readonly M[],
): LevelMatch<M> {
  let all = found;
  if (level.pattern !== undefined) {
    const re = anchoredPattern(level.pattern);
    all = all.filter((e) => re.test((e.text ?? "").replace(/\s+/g, " ").trim()));
  }
  const visible = all.filter((e) => e.visible && e.bounds.w > 0 && e.bounds.h > 0);
  const hidden = all.length - visible.length;
  if (level.nth !== undefined) {
    if (visible.length > level.nth) return { visible, hidden, element: visible[level.nth]! };
    if (visible.length === 0) return { visible, hidden };
    const n = level.nth + 1;
    return {
      visible,
      hidden,
      short: `index ${level.nth} needs ${n} match${n === 1 ? "" : "es"}`,
    };
  }
  return visible.length === 1 ? { visible, hidden, element: visible[0]! } : { visible, hidden };
}

/**
 * Runs the selector levels (not coordinates) in order through `finder`; the first level that
 * picks an element wins (exactly one visible match, or the n-th of a level with an index: see
 * {@linkcode pickMatch}). A lookup that throws counts as no match; when it threw because the
 * finder cannot read the selector, the level says so (`invalid`), and a level none of whose
 * lookups could be read is listed `unreadable`. The match of a weak level (CSS path, XPath), and
 * of a positional level used as a fallback ({@linkcode isPositional}, past the first level), goes
 * through `verify` before it wins; a refused match passes the level over, with the reason.
 *
 * @param finder a `Driver` or any element finder
 * @param levels the cascade, from {@linkcode webCascade} or {@linkcode androidCascade}
 * @returns the resolution with every level tried
 */
export async function resolveTarget(
  finder: ElementFinder,
  levels: readonly CascadeLevel[],
  options: {
    /**
     * Checks the match of a weak level, or of a positional fallback, against what the recording
     * knows of the element; a string is the reason it is refused.
     */
    verify?: (level: CascadeLevel, element: LookupMatch) => Promise<true | string>;
    /**
     * Every match of a level past the first (a healed one) goes through `verify`, not only a
     * weak or positional one: the fingerprint check of a fallback.
     */
    verifyHealed?: boolean;
    /**
     * The winning level's element is checked against the later identity levels
     * ({@linkcode IDENTITY}), only as far as needed: the first of them that picks one element
     * settles it — the same element confirms the win, another one makes the resolution
     * `ambiguous` (nothing is acted on). Levels that pick none are passed over.
     */
    confirm?: boolean;
  } = {},
): Promise<Resolution> {
  const tried: TriedLevel[] = [];
  const unreadable: CascadeLevel[] = [];
  let sawHidden = false;
  for (const [i, level] of levels.entries()) {
    if (level.strategy === "coordinates") continue;
    let visibleCount = 0;
    let hiddenCount = 0;
    let invalid: string | undefined;
    let unread = 0;
    let short: string | undefined;
    for (const query of level.queries) {
      let found: LookupMatch[];
      try {
        found = await finder.find(query);
      } catch (err) {
        // An unreadable selector is named as such; any other failure counts as no match.
        const why = invalidSelector(err);
        if (why !== undefined) unread++;
        invalid ??= why;
        // the parent of a scoped lookup matched nothing: the message names it
        if ((err as { code?: unknown } | null)?.code === SCOPE_NOT_FOUND) {
          short ??= err instanceof Error ? err.message : String(err);
        }
        found = [];
      }
      const m = pickMatch(level, found);
      visibleCount = m.visible.length;
      hiddenCount = m.hidden;
      if (m.element) {
        const checked = WEAK.has(level.strategy) ||
          (i > 0 && (isPositional(level) || options.verifyHealed === true));
        const verdict = options.verify && checked ? await options.verify(level, m.element) : true;
        if (verdict !== true) {
          tried.push({
            strategy: level.strategy,
            selector: level.selector,
            matches: 0,
            found: m.visible.length,
            refused: verdict,
          });
          visibleCount = -1;
          break;
        }
        tried.push({ strategy: level.strategy, selector: level.selector, matches: 1 });
        if (options.confirm) {
          const against = await contradiction(finder, levels.slice(i + 1), m.element, tried);
          if (against) {
            return {
              healed: false,
              ambiguous: { level, element: m.element, ...against },
              tried,
              sawHidden,
              unreadable,
            };
          }
        }
        return {
          level,
          element: m.element,
          healed: i > 0,
          position: i,
          tried,
          sawHidden,
          unreadable,
        };
      }
      // Too few for the index, or ambiguous: a looser lookup would only match more.
      if (m.short !== undefined || m.visible.length > 0) short = m.short;
      if (visibleCount > 0) break;
    }
    if (visibleCount < 0) continue; // refused by the verifier, already listed
    if (unread > 0 && unread === level.queries.length) unreadable.push(level);
    if (hiddenCount > 0 && visibleCount === 0) sawHidden = true;
    tried.push({
      strategy: level.strategy,
      selector: level.selector,
      matches: visibleCount,
      ...(hiddenCount > 0 ? { hidden: hiddenCount } : {}),
      ...(short !== undefined ? { refused: short } : {}),
      ...(invalid !== undefined && visibleCount === 0 ? { invalid } : {}),
    });
  }
  return { healed: false, tried, sawHidden, unreadable };
}

/**
 * The first later identity level (not an indexed one) that picks one element, when that element
 * is not `element`;
 * undefined when the first one that picks agrees, or none picks. Each level looked at is listed
 * in `tried`.
 */
async function contradiction(
  finder: ElementFinder,
  later: readonly CascadeLevel[],
  element: LookupMatch,
  tried: TriedLevel[],
): Promise<{ other: CascadeLevel; otherElement: LookupMatch } | undefined> {
  for (const level of later) {
    // an indexed level picks by position: a field inserted above moves it, it proves nothing
    if (!IDENTITY.has(level.strategy) || isPositional(level)) continue;
    let picked: LookupMatch | undefined;
    let seen = 0;
    for (const query of level.queries) {
      const found = await finder.find(query).catch(() => [] as LookupMatch[]);
      const m = pickMatch(level, found);
      seen = m.visible.length;
      picked = m.element;
      // one match settles the level; several make it no witness (a looser lookup adds more)
      if (picked || seen > 0) break;
    }
    tried.push({ strategy: level.strategy, selector: level.selector, matches: picked ? 1 : seen });
    if (!picked) continue;
    return sameElement(picked, element) ? undefined : { other: level, otherElement: picked };
  }
  return undefined;
}
