/**
 * The self-healing selector cascade (003 R3) as pure planning plus one resolve loop over any
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
 * @module
 */
import type { SelectorMode, Target } from "./actions.ts";
import { escapeRegex } from "../trail/mod.ts";
import { isPageCssPath } from "./coordinates.ts";

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
function withNth(levels: CascadeLevel[], target: Target): CascadeLevel[] {
  const nth = target.index;
  if (nth === undefined) return levels;
  return levels.map((l) => NO_NTH.has(l.strategy) ? l : { ...l, nth });
}

/**
 * The anchored form of a trail's `textRegex`, tested against whitespace-normalised text.
 *
 * @param source the regex source
 * @returns a RegExp matching the whole text only
 */
export function anchoredPattern(source: string): RegExp {
  return new RegExp(`^(?:${source})$`, "s");
}

/**
 * The CSS and XPath of a target's `within` ancestor, when it is one durable property (a test id,
 * an aria-label or content description, an id) and nothing else: a prefix any finder reads.
 */
function webScope(target: Target): { css: string; xpath: string; label: string } | undefined {
  const w = target.within;
  if (!w) return undefined;
  if (Object.keys(w).length !== 1) return undefined;
  if (w.testId) {
    return {
      css: `[data-testid=${cssString(w.testId)}]`,
      xpath: `//*[@data-testid=${xpathString(w.testId)}]`,
      label: `[data-testid=${cssString(w.testId)}]`,
    };
  }
  const label = w.ariaLabel ?? w.contentDescription;
  if (label) {
    return {
      css: `[aria-label=${cssString(label)}]`,
      xpath: `//*[@aria-label=${xpathString(label)}]`,
      label: `[aria-label=${cssString(label)}]`,
    };
  }
  if (w.id) {
    return {
      css: `[id=${cssString(w.id)}]`,
      xpath: `//*[@id=${xpathString(w.id)}]`,
      label: `#${w.id}`,
    };
  }
  return undefined;
}

/** Levels whose lookups can be scoped under an ancestor by a CSS / XPath prefix. */
const SCOPABLE: ReadonlySet<Strategy> = new Set(["test_id", "aria_label", "id", "text"]);

/**
 * A `within` ancestor as the Chrome driver's scope lookup (see {@linkcode ScopeLookup}); a
 * row-anchor chain nested in it is read as text filters.
 *
 * @param w the ancestor
 * @returns the scope lookup
 * @example
 * ```ts
 * const s = scopeLookup({ role: "listitem", text: "Rose" });
 * if (s.aria !== "listitem|" || s.text !== "Rose" || s.label !== 'role=listitem:has-text("Rose")') throw new Error(s.label);
 * ```
 */
export function scopeLookup(w: NonNullable<Target["within"]>): ScopeLookup {
  if (w.texts) {
    // a text-only chain (innermost first) as nested text filters, inside its own scope
    let out: ScopeLookup | undefined = w.within ? scopeLookup(w.within) : undefined;
    for (const text of [...w.texts].reverse()) {
      out = {
        text,
        label: `${out ? `${out.label} >> ` : ""}:has-text(${JSON.stringify(text)})`,
        ...(out ? { within: out } : {}),
      };
    }
    return out!;
  }
  const css: string[] = [];
  if (w.cssPath) css.push(`:is(${w.cssPath})`);
  if (w.id) css.push(`[id=${cssString(w.id)}]`);
  if (w.testId) css.push(`[data-testid=${cssString(w.testId)}]`);
  const label = w.ariaLabel ?? w.contentDescription;
  if (label) css.push(`[aria-label=${cssString(label)}]`);
  if (w.className) css.push(`[class~=${cssString(w.className)}]`);
  const parent = w.within ? scopeLookup(w.within) : undefined;
  const aria = w.role !== undefined || w.name !== undefined
    ? `${w.role ?? ""}|${w.name ?? ""}`
    : undefined;
  const own = [
    w.cssPath ?? "",
    w.id !== undefined ? `#${w.id}` : "",
    w.testId !== undefined ? `[data-testid=${cssString(w.testId)}]` : "",
    label !== undefined ? `[aria-label=${cssString(label)}]` : "",
    w.className !== undefined ? `.${w.className}` : "",
    w.role !== undefined || w.name !== undefined
      ? `role=${w.role ?? "*"}${w.name !== undefined ? `[name=${cssString(w.name)}]` : ""}`
      : "",
    w.text !== undefined ? `:has-text(${JSON.stringify(w.text)})` : "",
    w.textRegex !== undefined ? `:has-text(/${w.textRegex}/)` : "",
  ].join("") || "*";
  const nth = w.index !== undefined ? ` >> nth=${w.index}` : "";
  return {
    ...(css.length ? { css: css.join("") } : {}),
    ...(aria !== undefined ? { aria } : {}),
    ...(w.text !== undefined ? { text: w.text } : {}),
    ...(w.textRegex !== undefined ? { textRegex: w.textRegex } : {}),
    ...(w.index !== undefined ? { index: w.index } : {}),
    ...(parent ? { within: parent } : {}),
    label: `${parent ? `${parent.label} >> ` : ""}${own}${nth}`,
  };
}

/** A web level whose every lookup is searched for only inside the scope's elements. */
function withinWebLevel(level: CascadeLevel, scope: ScopeLookup): CascadeLevel {
  const queries = level.queries.map((q): LookupQuery => ({
    using: WEB_WITHIN,
    value: q.value,
    scoped: { query: q, scope },
  }));
  return { ...level, selector: `${scope.label} >> ${level.selector}`, queries };
}

/** A web level rewritten to look only inside the scope's element. */
function scopeWebLevel(
  level: CascadeLevel,
  scope: { css: string; xpath: string; label: string },
): CascadeLevel {
  const queries = level.queries.map((q): LookupQuery => {
    if (q.using === "css") return { using: "css", value: `${scope.css} ${q.value}` };
    if (q.using === "xpath" && q.value.startsWith("//body//")) {
      return { using: "xpath", value: `${scope.xpath}//${q.value.slice("//body//".length)}` };
    }
    return q;
  });
  return { ...level, selector: `${scope.label} >> ${level.selector}`, queries };
}

/**
 * Quotes a string as a CSS attribute value.
 *
 * @param value the raw value
 * @returns a double-quoted CSS string
 */
export function cssString(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\a ")}"`;
}

/**
 * Quotes a string as an XPath 1.0 literal (with `concat()` when it holds both quote kinds).
 *
 * @param value the raw value
 * @returns an XPath expression evaluating to `value`
 * @example
 * ```ts
 * if (xpathString(`a"b'c`) !== `concat("a", '"', "b'c")`) throw new Error();
 * ```
 */
export function xpathString(value: string): string {
  if (!value.includes('"')) return `"${value}"`;
  if (!value.includes("'")) return `'${value}'`;
  return `concat(${value.split('"').map((p) => `"${p}"`).join(`, '"', `)})`;
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";

/**
 * The three text lookups: exact own text, whitespace-normalised full text of the deepest
 * element, and the same case-insensitively. Never a substring.
 *
 * @param text the recorded text
 * @returns XPath lookups, strictest first
 */
export function textQueries(text: string): LookupQuery[] {
  const norm = text.replace(/\s+/g, " ").trim();
  const lit = xpathString(text);
  const nlit = xpathString(norm);
  const llit = xpathString(norm.toLowerCase());
  const lower = `translate(normalize-space(.), "${UPPER}", "${LOWER}")`;
  return [
    { using: "xpath", value: `//body//*[text()[. = ${lit}]]` },
    {
      using: "xpath",
      value: `//body//*[normalize-space(.) = ${nlit}][not(.//*[normalize-space(.) = ${nlit}])]`,
    },
    {
      using: "xpath",
      value: `//body//*[${lower} = ${llit}][not(.//*[${lower} = ${llit}])]`,
    },
  ];
}

/** Class tokens that look generated (CSS-in-JS hashes, styled-components, CSS modules). */
const DYNAMIC_CLASS =
  /^(css|sc|jsx|emotion|styled|jss|tw)-[\w-]+$|^[a-zA-Z]+_[\w]+__[\w-]{4,}$|^(?=[\w-]*\d)(?=[\w-]*[a-zA-Z])[\w-]{5,}$/;

/**
 * Removes generated class names from a CSS path (003 R3: CSS path with dynamic class
 * filtering): `div.css-1x9ab > button.btn.sc-hKgIl` → `div > button.btn`.
 *
 * @param path a CSS path of compound selectors joined by combinators
 * @returns the path without dynamic class tokens
 * @example
 * ```ts
 * if (sanitizeCssPath("div.css-1x9ab > button.btn.sc-hKgIl") !== "div > button.btn") throw new Error();
 * ```
 */
export function sanitizeCssPath(path: string): string {
  return path.replace(/\.(-?[_a-zA-Z][\w-]*)/g, (whole, name: string) => {
    return DYNAMIC_CLASS.test(name) ? "" : whole;
  });
}

/**
 * Plans the web cascade for a target: the levels its recorded selectors allow, in the order
 * of 003 R3, shaped by the selector mode (see {@linkcode levelsForMode}). A trail's ordered
 * fallback list (`target.alternatives`) is followed in its order — the optimizer put the unique
 * selector first — each entry planned on its own (in 003's order within the entry), so its
 * `index` and `childOf` qualify only its own lookups and a positional entry is tried only when
 * the entries before it fail; a lookup an earlier entry already planned is not repeated. A level
 * with an index shows it as Playwright does (`[data-testid="field"] >> nth=0`).
 *
 * @param target what the recording knows of the element
 * @param mode strict (primary selector only), flexible (no coordinates) or adaptive (all)
 * @returns the levels to try, best first; coordinates last when the mode allows and a point exists
 * @example
 * ```ts
 * const levels = webCascade({ testId: "go", ariaLabel: "Go" }, "adaptive");
 * if (levels[0]!.selector !== '[data-testid="go"]' || levels[1]!.strategy !== "aria_label") throw new Error();
 * const ordered = webCascade({
 *   testId: "field",
 *   ariaLabel: "Email",
 *   index: 0,
 *   alternatives: [{ ariaLabel: "Email" }, { testId: "field", index: 0 }],
 * });
 * if (ordered[0]!.selector !== '[aria-label="Email"]' || ordered[0]!.nth !== undefined) throw new Error();
 * if (ordered[1]!.selector !== '[data-testid="field"] >> nth=0') throw new Error();
 * ```
 */
export function webCascade(target: Target, mode: SelectorMode = "adaptive"): CascadeLevel[] {
  const levels = levelsForMode(plannedInOrder(target, webLevels), target, mode);
  // the page itself at a recorded point: act there (the body's center may hold anything)
  if (!isPageCssPath(target.cssPath) || !levels.some((l) => l.strategy === "coordinates")) {
    return levels;
  }
  return levels.filter((l) => l.strategy !== "css_path" || !isPageCssPath(l.selector));
}

/**
 * The levels of a target's selectors: each entry of its ordered fallback list on its own, in
 * order (or the target alone), a lookup already planned by an earlier entry left out.
 */
function plannedInOrder(
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

/** The web levels of one selector (no coordinates), scoped and indexed as it says. */
function webLevels(target: Omit<Target, "alternatives" | "point">): CascadeLevel[] {
  const levels: CascadeLevel[] = [];
  const css = (strategy: Strategy, selector: string): CascadeLevel => ({
    strategy,
    selector,
    queries: [{ using: "css", value: selector }],
  });
  if (target.css) levels.push(css("css", target.css));
  if (target.testId) levels.push(css("test_id", `[data-testid=${cssString(target.testId)}]`));
  if (target.ariaLabel) {
    levels.push(css("aria_label", `[aria-label=${cssString(target.ariaLabel)}]`));
  }
  if (target.name) {
    // A Chrome Recorder `aria/Name` selector carries a name without a role.
    levels.push({
      strategy: "role_name",
      selector: target.role
        ? `role=${target.role}[name=${cssString(target.name)}]`
        : `aria/${target.name}`,
      queries: [{ using: "aria", value: `${target.role ?? ""}|${target.name}` }],
    });
  } else if (target.role && target.index !== undefined) {
    // A role with an index and no name (`{ role: textbox, index: 1 }`): the n-th of the role.
    levels.push({
      strategy: "role_name",
      selector: `role=${target.role}`,
      queries: [{ using: "aria", value: `${target.role}|` }],
    });
  } else if (target.role && target.within?.texts && ROW_ROLES[target.role]) {
    // A control's role alone within its row (the row's one checkbox): anchored to the row by
    // XPath below, never looked up on its own.
    levels.push({
      strategy: "role_name",
      selector: `role=${target.role}`,
      queries: [{ using: "aria", value: `${target.role}|` }],
    });
  }
  if (target.id) {
    levels.push({
      strategy: "id",
      selector: `#${target.id}`,
      queries: [{ using: "css", value: `[id=${cssString(target.id)}]` }],
    });
  }
  if (target.text) {
    levels.push({
      strategy: "text",
      selector: `text=${target.text}`,
      queries: textQueries(target.text),
    });
  }
  if (target.textContains) {
    levels.push({
      strategy: "text",
      selector: `text/${target.textContains}`,
      queries: [{ using: "xpath", value: deepestContaining(target.textContains) }],
    });
  }
  if (target.textRegex) {
    levels.push({
      strategy: "text",
      selector: `text=/${target.textRegex}/`,
      queries: [{ using: "xpath", value: `//body//*[text()[normalize-space(.) != ""]]` }],
      pattern: target.textRegex,
    });
  }
  if (target.className) {
    // a class (a hand-written `{ className: add, index: 2 }`): its index is its own, as Android's
    levels.push({
      strategy: "class_index",
      selector: `.${target.className}`,
      queries: [{ using: "css", value: `[class~=${cssString(target.className)}]` }],
      ...(target.index !== undefined ? { nth: target.index } : {}),
    });
  }
  if (target.xpath) {
    levels.push({
      strategy: "xpath",
      selector: target.xpath,
      queries: [{ using: "xpath", value: target.xpath }],
    });
  }
  if (target.cssPath) {
    const clean = sanitizeCssPath(target.cssPath);
    if (clean.trim()) levels.push(css("css_path", clean));
  }
  const rows = target.within?.texts;
  let planned: CascadeLevel[];
  if (rows) {
    planned = anchoredWebLevels(levels, target, rows);
    // rows inside a scope (`{ text: Add, childOf: { text: Rose, childOf: { id: list } } }`)
    const outer = target.within?.within;
    if (outer) planned = planned.map((l) => withinWebLevel(l, scopeLookup(outer)));
  } else if (target.within && webScope(target)) {
    // one durable property: a CSS / XPath prefix where it fits, the driver's scope elsewhere
    const prefix = webScope(target)!;
    const scope = scopeLookup(target.within);
    planned = levels.map((l) =>
      SCOPABLE.has(l.strategy) ? scopeWebLevel(l, prefix) : withinWebLevel(l, scope)
    );
  } else if (target.within) {
    const scope = scopeLookup(target.within);
    planned = levels.map((l) => withinWebLevel(l, scope));
  } else planned = levels;
  return withNth(planned, target).map((l) =>
    l.nth === undefined ? l : { ...l, selector: `${l.selector} >> nth=${l.nth}` }
  );
}

/**
 * XPath of the elements whose text contains `text` (whitespace-normalised) and none of whose
 * descendants does: Chrome's `text/` query (puppeteer's text handler), scripts and styles left
 * out as it leaves them out.
 */
function deepestContaining(text: string): string {
  const want = xpathString(text.replace(/\s+/g, " ").trim());
  const el = `*[not(self::script or self::style)][contains(normalize-space(.), ${want})]`;
  return `//body//${el}[not(.//${el})]`;
}

/** XPath: a text node equal to `text`, whitespace-normalised and ASCII case-insensitively. */
function textNodeIs(text: string): string {
  const want = text.replace(/\s+/g, " ").trim().replace(/[A-Z]/g, (c) => c.toLowerCase());
  return `translate(normalize-space(.), "${UPPER}", "${LOWER}") = ${xpathString(want)}`;
}

/**
 * The literal runs every match of a regex contains (`Cart \(\d+ items?\)` → `Cart (`,
 * ` item`, `)`), or undefined when the regex has groups, alternatives or escapes it cannot read.
 *
 * @param source the regex source
 * @returns the runs, or undefined
 * @example
 * ```ts
 * if (regexLiterals("Cart \\(\\d+ items?\\)")?.join("|") !== "Cart (| item|)") throw new Error();
 * ```
 */
export function regexLiterals(source: string): string[] | undefined {
  const out: string[] = [];
  let cur = "";
  const flush = () => {
    if (cur.trim()) out.push(cur);
    cur = "";
  };
  const quantifier = (i: number): number => {
    const q = source[i + 1];
    if (q === "?" || q === "*" || q === "+") return i + 1 + (source[i + 2] === "?" ? 1 : 0);
    return i;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    let lit: string | undefined;
    if (c === "\\") {
      const n = source[++i];
      if (n === undefined || /[A-Za-z0-9]/.test(n) && !/[dDsSwW]/.test(n)) {
        return undefined;
      }
      if (/[dDsSwW]/.test(n)) {
        flush();
        i = quantifier(i);
        continue;
      }
      lit = n;
    } else if (c === "[") {
      let j = i + 1;
      if (source[j] === "]") j++;
      while (j < source.length && source[j] !== "]") j += source[j] === "\\" ? 2 : 1;
      if (j >= source.length) return undefined;
      flush();
      i = quantifier(j);
      continue;
    } else if (c === ".") {
      flush();
      i = quantifier(i);
      continue;
    } else if ("()|{}".includes(c)) return undefined;
    else if (c === "^" || c === "$") {
      flush();
      continue;
    } else if ("?*+".includes(c)) return undefined;
    else lit = c;
    const q = source[i + 1];
    if (q === "?" || q === "*") {
      flush();
      i = quantifier(i);
    } else if (q === "+") {
      cur += lit;
      flush();
      i = quantifier(i);
    } else cur += lit;
  }
  flush();
  return out.map((r) => r.replace(/\s+/g, " "));
}

/**
 * The controls a row-anchored `{ role, childOf: { text } }` without a name finds (a row's one
 * checkbox, one select, one button), as XPath step predicates: native elements and ARIA roles.
 */
const ROW_ROLES: Readonly<Record<string, string>> = {
  checkbox: `[(self::input and @type="checkbox") or @role="checkbox"]`,
  radio: `[(self::input and @type="radio") or @role="radio"]`,
  combobox: `[(self::select and not(@multiple)) or @role="combobox"]`,
  button: `[self::button or @role="button" or (self::input and ` +
    `(@type="button" or @type="submit" or @type="reset"))]`,
  link: `[(self::a and @href) or @role="link"]`,
};

/**
 * The XPath step predicate of a level's element (without the leading `*`), or undefined for a
 * level that cannot be written as one (ARIA, CSS paths). Text levels give their three tiers.
 */
function levelPredicates(level: CascadeLevel, target: Target): string[] | undefined {
  switch (level.strategy) {
    case "role_name": {
      // a control's role alone (no name, no index): the elements of that role
      const role = target.name === undefined && target.index === undefined
        ? ROW_ROLES[target.role ?? ""]
        : undefined;
      return role === undefined ? undefined : [role];
    }
    case "test_id":
      return [`[@data-testid=${xpathString(target.testId!)}]`];
    case "aria_label":
      return [`[@aria-label=${xpathString(target.ariaLabel!)}]`];
    case "id":
      return [`[@id=${xpathString(target.id!)}]`];
    case "text": {
      if (level.pattern !== undefined) {
        const owns = `[text()[normalize-space(.) != ""]]`;
        const has = (regexLiterals(level.pattern) ?? [])
          .map((r) => `[contains(normalize-space(.), ${xpathString(r)})]`).join("");
        // the deepest such element: an ancestor's text holds the same runs
        return [`${owns}${has}[not(.//*${owns}${has})]`];
      }
      return level.queries.map((q) => q.value.slice("//body//*".length));
    }
    default:
      return undefined;
  }
}

/**
 * The levels of a target anchored to rows (`within.texts`): each level's element must lie in
 * the nearest ancestor showing the first text and be the only such element there; a further
 * text names the nearest ancestor (or the row itself) showing it, which must hold one first
 * text. Levels that cannot be anchored (ARIA role + name) are dropped: unanchored, they would
 * pick the same control in any row. CSS paths, XPaths and raw CSS stay as written.
 */
function anchoredWebLevels(
  levels: CascadeLevel[],
  target: Target,
  texts: readonly string[],
): CascadeLevel[] {
  const label = texts.map((t) => `row(${JSON.stringify(t)})`).join(" ");
  const out: CascadeLevel[] = [];
  for (const level of levels) {
    const preds = levelPredicates(level, target);
    if (preds === undefined) {
      if (level.strategy !== "role_name") out.push(level);
      continue;
    }
    const queries = preds.map((p): LookupQuery => {
      let outer = "";
      for (let k = texts.length - 1; k >= 1; k--) {
        outer = `[ancestor-or-self::*[.//text()[${textNodeIs(texts[k]!)}]][1][count(.//text()[${
          textNodeIs(texts[k - 1]!)
        }]) = 1]${outer}]`;
      }
      const row = `ancestor::*[.//text()[${textNodeIs(texts[0]!)}]][1][count(.//*${p}) = 1]`;
      return {
        using: "xpath",
        value: `//body//*${p}[${row}${outer}]`,
        anchored: { element: p, texts: texts.map(textNodeIs) },
      };
    });
    out.push({ ...level, selector: `${label} >> ${level.selector}`, queries });
  }
  return out;
}

/**
 * With a `within` ancestor: every level scoped under it. Scopes chain strictly, as Playwright's
 * `locator(parent).locator(child)`: no level looks outside the parent, so healing never lands
 * on an element in another scope.
 */
function scoped<S>(
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
 * Plans the Android cascade: resource id (or test tag) → content description → text → class +
 * index → coordinates, as UiAutomator2 lookups (engineer F's driver answers them). A trail's
 * ordered fallback list (`target.alternatives`) is followed in its order — the optimizer put the
 * unique selector first — each entry planned on its own, so its `index` and `childOf` qualify
 * only its own lookups; a lookup an earlier entry already planned is not repeated. A level
 * with an index shows it (`id=field[1]`).
 *
 * @param target what the recording knows of the element
 * @param mode the selector mode
 * @returns the levels to try, best first
 * @example
 * ```ts
 * const levels = androidCascade({ id: "com.app:id/ok", text: "OK" }, "adaptive");
 * if (levels[0]!.queries[0]!.using !== "id" || levels[1]!.strategy !== "text") throw new Error();
 * const ordered = androidCascade({
 *   id: "field",
 *   contentDescription: "input-email",
 *   alternatives: [{ contentDescription: "input-email" }, { id: "field", index: 0 }],
 * });
 * if (ordered[0]!.selector !== "~input-email" || ordered[1]!.selector !== "id=field[0]") throw new Error();
 * ```
 */
export function androidCascade(target: Target, mode: SelectorMode = "adaptive"): CascadeLevel[] {
  return levelsForMode(plannedInOrder(target, androidLevels), target, mode);
}

/** The Android levels of one selector (no coordinates), scoped and indexed as it says. */
function androidLevels(target: Omit<Target, "alternatives" | "point">): CascadeLevel[] {
  const levels: CascadeLevel[] = [];
  const ui = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  // A test tag (Compose testTag, React Native testID) is a bare resource-id on Android.
  const id = target.id ?? target.testId;
  if (id) {
    levels.push({
      strategy: "id",
      selector: `id=${id}`,
      queries: [{ using: "id", value: id }],
    });
  }
  const desc = target.contentDescription ?? target.ariaLabel;
  if (desc) {
    levels.push({
      strategy: "content_description",
      selector: `~${desc}`,
      queries: [{ using: "accessibility id", value: desc }],
    });
  }
  if (target.text) {
    levels.push({
      strategy: "text",
      selector: `text=${JSON.stringify(target.text)}`,
      queries: [
        { using: "-android uiautomator", value: `new UiSelector().text(${ui(target.text)})` },
        {
          using: "-android uiautomator",
          value: `new UiSelector().textMatches(${
            ui(`(?i)\\s*${escapeRegex(target.text.trim())}\\s*`)
          })`,
        },
      ],
    });
  }
  if (target.textRegex) {
    levels.push({
      strategy: "text",
      selector: `text=/${target.textRegex}/`,
      queries: [{
        using: "-android uiautomator",
        // UiAutomator's textMatches is a whole-string (anchored) Java regex match.
        value: `new UiSelector().textMatches(${ui(target.textRegex)})`,
      }],
    });
  }
  if (target.className && target.index === undefined && target.within) {
    // Type + parent context (000): the class alone, scoped under the parent below.
    levels.push({
      strategy: "class_index",
      selector: target.className,
      queries: [{
        using: "-android uiautomator",
        value: `new UiSelector().className(${ui(target.className)})`,
      }],
    });
  }
  if (target.className && target.index !== undefined) {
    levels.push({
      strategy: "class_index",
      selector: `${target.className}[${target.index}]`,
      queries: [{
        using: "-android uiautomator",
        value: `new UiSelector().className(${ui(target.className)}).instance(${target.index})`,
      }],
    });
  }
  const rows = target.within?.texts;
  return withNth(
    rows
      ? anchoredAndroidLevels(levels, rows)
      : scoped(levels, target, androidScope, scopeAndroidLevel),
    target,
  ).map((l) => l.nth === undefined ? l : { ...l, selector: `${l.selector}[${l.nth}]` });
}

/**
 * The lookup strategy of a row-anchored Android lookup: `value` (and `anchored.element`) is the
 * element's UiSelector, `anchored.texts` the row's texts, innermost first. UiAutomator has no
 * such query: the Android driver answers it over the page source (`AndroidScreenLookup`), and a
 * finder that does not know it refuses it rather than dropping the anchor.
 */
export const ANDROID_ROW_ANCHORED = "-cairn row anchored";

/**
 * The Android levels of a target anchored to rows (`within.texts`), as the web's
 * (`anchoredWebLevels`): each level's element must lie in its nearest ancestor showing the
 * first text (that node or one below it has that text, whitespace-normalised and ASCII
 * case-insensitively) and be the only match of the level there; a further text names the
 * nearest ancestor (or the row itself) showing it, which must hold one node showing the first.
 * A class + index level (`.instance(n)`, a position on the whole screen) stays as written.
 */
function anchoredAndroidLevels(
  levels: CascadeLevel[],
  texts: readonly string[],
): CascadeLevel[] {
  const label = texts.map((t) => `row(${JSON.stringify(t)})`).join(" ");
  return levels.map((level) => {
    if (level.queries.some((q) => /\.instance\(/.test(q.value))) return level;
    const queries = level.queries.map((q): LookupQuery => {
      const element = q.using === "-android uiautomator"
        ? q.value
        : q.using === "id"
        ? `new UiSelector().${uiResourceId(q.value)}`
        : `new UiSelector().description(${uiString(q.value)})`;
      return {
        using: ANDROID_ROW_ANCHORED,
        value: element,
        anchored: { element, texts: [...texts] },
      };
    });
    return { ...level, selector: `${label} >> ${level.selector}`, queries };
  });
}

const uiString = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

/** A resource id as a UiSelector method: a bare name matches any package's `:id/name`. */
function uiResourceId(id: string): string {
  return id.includes(":id/")
    ? `resourceId(${uiString(id)})`
    : `resourceIdMatches(${uiString(`(.*:id/)?${escapeRegex(id)}`)})`;
}

/** The UiSelector of a target's `within` ancestor. */
function androidScope(target: Target): { ui: string; label: string } | undefined {
  const w = target.within;
  if (!w) return undefined;
  const id = w.id ?? w.testId;
  if (id) return { ui: `new UiSelector().${uiResourceId(id)}`, label: `id=${id}` };
  const desc = w.contentDescription ?? w.ariaLabel;
  if (desc) return { ui: `new UiSelector().description(${uiString(desc)})`, label: `~${desc}` };
  return undefined;
}

/** An Android level as a UiSelector `.childSelector(...)` under the scope's element. */
function scopeAndroidLevel(
  level: CascadeLevel,
  scope: { ui: string; label: string },
): CascadeLevel {
  const queries = level.queries.map((q): LookupQuery => {
    const child = q.using === "-android uiautomator"
      ? q.value
      : q.using === "id"
      ? `new UiSelector().${uiResourceId(q.value)}`
      : q.using === "accessibility id"
      ? `new UiSelector().description(${uiString(q.value)})`
      : undefined;
    if (child === undefined) return q;
    return { using: "-android uiautomator", value: `${scope.ui}.childSelector(${child})` };
  });
  return { ...level, selector: `${scope.label} >> ${level.selector}`, queries };
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
  /** True when a level past the first found it (003: status `healed`). */
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
