/**
 * The web levels of the cascade: data-testid → aria-label → role + name → id → text → class →
 * CSS path, as CSS and XPath lookups, scoped under a `within` ancestor or anchored to a row.
 *
 * @module
 */
import type { SelectorMode, Target } from "./actions.ts";
import { isPageCssPath } from "./coordinates.ts";
import {
  type CascadeLevel,
  levelsForMode,
  type LookupQuery,
  plannedInOrder,
  type ScopeLookup,
  type Strategy,
  WEB_WITHIN,
  withNth,
} from "./cascade_levels.ts";
import {
  cssString,
  deepestContaining,
  regexLiterals,
  sanitizeCssPath,
  textNodeIs,
  textQueries,
  xpathString,
} from "./web_queries.ts";

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
 * Plans the web cascade for a target: the levels its recorded selectors allow, in the order
 * of the cascade, shaped by the selector mode (see {@linkcode levelsForMode}). A trail's ordered
 * fallback list (`target.alternatives`) is followed in its order — the optimizer put the unique
 * selector first — each entry planned on its own (in cascade order within the entry), so its
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
