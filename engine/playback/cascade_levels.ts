/**
 * The cascade's vocabulary: a level (a strategy, the selector shown, its native lookups), what
 * a lookup finds, and the planning steps every platform shares — an ordered fallback list
 * planned entry by entry, scoping under a `within` ancestor, an index as `nth`, and the
 * selector mode's cut.
 *
 * @module
 */
import type { SelectorMode, Target } from "./actions.ts";

/** A native lookup, the same shape as `FindQuery` of `drivers/driver.ts`. */
export interface LookupQuery {
  using: string;
  value: string;
  /**
   * A row-anchored XPath lookup (see {@linkcode RowAnchored}) in its parts, so a finder can
   * evaluate it in one pass instead of re-scanning every candidate's ancestors; `value` stays
   * the whole XPath, and a finder that reads the parts must find the same elements.
   */
  anchored?: RowAnchored;
  /**
   * A lookup scoped under an ancestor ({@linkcode WEB_WITHIN}): `query` is searched for only
   * inside the elements `scope` matches (a trail's `childOf` that no plain CSS or XPath prefix
   * can express: a role, a text, an index, a nested parent, several properties).
   */
  scoped?: { query: LookupQuery; scope: ScopeLookup };
}

/**
 * The lookup strategy of a web lookup scoped under an ancestor (`LookupQuery.scoped`). Only the
 * Chrome driver answers it; a finder that does not know it refuses it (no match) rather than
 * dropping the scope.
 */
export const WEB_WITHIN = "-cairn within";

/**
 * An ancestor as the Chrome driver finds it: the elements matching `css` (or, with `aria`, the
 * puppeteer `aria/` query's elements that also match `css`), inside one of `within`'s elements
 * when given, that show `text` (a text node inside, whitespace-normalised, ASCII case-insensitive)
 * and a text `textRegex` matches whole; `index` keeps the n-th of them (document order).
 */
export interface ScopeLookup {
  css?: string;
  /** `role|name`, as an `aria` lookup's value. */
  aria?: string;
  text?: string;
  textRegex?: string;
  index?: number;
  within?: ScopeLookup;
  /** How messages name it: `role=listitem:has-text("Rose")`, `#list`. */
  label: string;
}

/**
 * The parts of a row-anchored lookup. Android ({@linkcode ANDROID_ROW_ANCHORED}): the element's
 * UiSelector and the row's texts, innermost first. Web: the XPath step predicate of the element
 * (`E`, as in `//*E`) and, innermost first, the predicates of the anchors' text nodes (`T0`,
 * `T1`, … as in `//text()[T0]`); the whole web lookup is
 * `//body//*E[ancestor::*[.//text()[T0]][1][count(.//*E) = 1][ancestor-or-self::*[.//text()[T1]][1][count(.//text()[T0]) = 1]…]]`:
 * the element's nearest ancestor showing the first text holds no other such element, and each
 * further text's nearest ancestor (or the row itself) holds one previous text.
 */
export interface RowAnchored {
  element: string;
  texts: string[];
}

/** What a lookup found, the fields of `FoundElement` of `drivers/driver.ts` the cascade reads. */
export interface LookupMatch {
  bounds: { x: number; y: number; w: number; h: number };
  visible: boolean;
  enabled: boolean;
  handle?: string;
  text?: string;
}

/** Anything that answers native lookups (a `Driver`). */
export interface ElementFinder {
  find(query: LookupQuery): Promise<LookupMatch[]>;
}

/** Cascade level names, as stored in `PlaybackActionResolved.strategy` and `selector_used`. */
export type Strategy =
  | "css"
  | "xpath"
  | "test_id"
  | "aria_label"
  | "role_name"
  | "id"
  | "text"
  | "css_path"
  | "content_description"
  | "class_index"
  | "coordinates";

/** One level of a cascade: its name, the selector string shown, and the lookups to try in order. */
export interface CascadeLevel {
  strategy: Strategy;
  /** The concrete selector string (`[data-testid="submit"]`), for reports and fragile stats. */
  selector: string;
  /** Lookups tried in order; the first with exactly one visible match wins the level. */
  queries: LookupQuery[];
  /**
   * A trail's `index`: when a lookup matches several visible elements, the n-th (0-based,
   * document order) wins instead of the level being passed over as ambiguous.
   */
  nth?: number;
  /** A trail's `textRegex`, anchored: only matches whose text it matches whole count. */
  pattern?: string;
}

/** Levels that `index` (nth) does not apply to: they locate by position already. */
const NO_NTH: ReadonlySet<Strategy> = new Set(["class_index", "coordinates", "css_path", "xpath"]);

/** Sets a target's index as `nth` on the levels it qualifies. */
export function withNth(levels: CascadeLevel[], target: Target): CascadeLevel[] {
  const nth = target.index;
  if (nth === undefined) return levels;
  return levels.map((l) => NO_NTH.has(l.strategy) ? l : { ...l, nth });
}

/**
 * The levels of a target's selectors: each entry of its ordered fallback list on its own, in
 * order (or the target alone), a lookup already planned by an earlier entry left out.
 */
export function plannedInOrder(
  target: Target,
  levelsOf: (selector: Omit<Target, "alternatives" | "point">) => CascadeLevel[],
): CascadeLevel[] {
  const entries = target.alternatives?.length ? target.alternatives : [target];
  const levels: CascadeLevel[] = [];
  const planned = new Set<string>();
  for (const entry of entries) {
    for (const level of levelsOf(entry)) {
      const key = JSON.stringify([level.queries, level.nth, level.pattern]);
      if (planned.has(key)) continue;
      planned.add(key);
      levels.push(level);
    }
  }
  return levels;
}

/**
 * With a `within` ancestor: every level scoped under it. Scopes chain strictly, as Playwright's
 * `locator(parent).locator(child)`: no level looks outside the parent, so healing never lands
 * on an element in another scope.
 */
export function scoped<S>(
  levels: CascadeLevel[],
  target: Target,
  scopeOf: (t: Target) => S | undefined,
  rewrite: (l: CascadeLevel, s: S) => CascadeLevel,
): CascadeLevel[] {
  const scope = scopeOf(target);
  if (scope === undefined) return levels;
  return levels.map((l) => rewrite(l, scope));
}

/**
 * The one place selector modes map to cascade behaviour: strict keeps only the primary
 * (first recorded) selector and never heals; flexible keeps every selector level but no
 * coordinates; adaptive keeps everything and ends with coordinates when a point was recorded.
 *
 * @param levels the selector levels, best first
 * @param target the target (its point feeds the coordinates level)
 * @param mode the selector mode
 * @returns the levels the mode allows
 */
export function levelsForMode(
  levels: CascadeLevel[],
  target: Target,
  mode: SelectorMode,
): CascadeLevel[] {
  if (mode === "strict") return levels.slice(0, 1);
  if (mode === "flexible") return levels;
  if (target.point) {
    return [...levels, {
      strategy: "coordinates",
      selector: `xy=${Math.round(target.point.x)},${Math.round(target.point.y)}`,
      queries: [],
    }];
  }
  return levels;
}
