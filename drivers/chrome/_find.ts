/**
 * Turns a {@linkcode FindQuery} into what the Chrome driver runs: `css` (piercing shadow DOM)
 * and `aria` (`role|name`) as puppeteer selectors; `text`, `xpath` and a row-anchored `xpath`
 * as one page expression that finds the elements and reads their facts in a single round trip.
 * `text` matches exactly, then whitespace-normalised, then case-insensitively (never a
 * substring) through open shadow roots; a `//body//…` `xpath` is evaluated in every open shadow
 * root too (the playback cascade's text levels are such XPaths); a row-anchored `xpath` given in
 * parts (`anchored`) is evaluated from its parts, in one pass instead of its quadratic XPath.
 *
 * @module
 */
import { DriverError, type FindQuery } from "../driver.ts";
import {
  anchoredPiercingInPage,
  elementFactsInPage,
  inScopeInPage,
  textPiercingInPage,
  xpathPiercingInPage,
} from "./_page_functions.ts";

/** How the driver runs a lookup: a puppeteer selector, or a page expression giving facts. */
export type FindPlan =
  | { selector: string }
  | {
    /** Evaluates to the `ElementFacts[]` of the elements found, in document order. */
    expression: string;
  };

/**
 * How the Chrome driver runs a lookup.
 *
 * @param query the lookup (`css`, `aria`, `text`, `xpath`)
 * @returns a selector for `page.$$`, or an expression for `page.evaluate`
 * @throws {DriverError} when the strategy is unknown or the value is empty
 * @example
 * ```ts
 * import { findPlan } from "./_find.ts";
 * const plan = findPlan({ using: "aria", value: "button|Sign in" });
 * if (!("selector" in plan) || plan.selector !== 'aria/Sign in[role="button"]') throw new Error();
 * if (!("expression" in findPlan({ using: "xpath", value: "//body//a" }))) throw new Error();
 * ```
 */
export function findPlan(query: FindQuery): FindPlan {
  if (query.value.trim() === "") {
    throw new DriverError(`Cannot find by ${query.using}: the value is empty`, "bad_query");
  }
  switch (query.using) {
    case "css":
      // `>>>` already crosses shadow roots; otherwise search every root with pierce/.
      return { selector: query.value.includes(">>>") ? query.value : `pierce/${query.value}` };
    case "aria": {
      const bar = query.value.indexOf("|");
      const role = bar >= 0 ? query.value.slice(0, bar).trim() : query.value.trim();
      const name = bar >= 0 ? query.value.slice(bar + 1).trim() : "";
      return {
        selector: `aria/${escapeAria(name)}${role ? `[role="${escapeAria(role)}"]` : ""}`,
      };
    }
    case "text":
      return { expression: factsOf(textPiercingInPage, query.value) };
    case "xpath":
      return {
        expression: query.anchored
          ? factsOf(anchoredPiercingInPage, JSON.stringify(query.anchored))
          : factsOf(xpathPiercingInPage, query.value),
      };
    default:
      throw new DriverError(
        `Cannot find by ${JSON.stringify(query.using)}: use css, aria, text or xpath`,
        "unsupported_query",
      );
  }
}

/**
 * The page expression: `finder(document, arg)`, then the facts of what it found; `scoped`: only
 * of those inside the elements a scope lookup kept ({@linkcode inScopeInPage}).
 */
function factsOf(
  finder: (root: Node, arg: string) => Element[],
  arg: string,
  scoped = false,
): string {
  const found = `(${finder.toString()})(document, ${JSON.stringify(arg)})`;
  return `(${elementFactsInPage.toString()})(...${
    scoped ? `(${inScopeInPage.toString()})(${found})` : found
  })`;
}

/**
 * How the Chrome driver runs the inner lookup of a scoped one (`WEB_WITHIN` of
 * `engine/playback/cascade.ts`): as {@linkcode findPlan}, an expression keeping only the elements
 * inside the scope; a selector's elements are filtered by the driver.
 *
 * @param query the inner lookup
 * @returns the plan
 */
export function scopedFindPlan(query: FindQuery): FindPlan {
  const plan = findPlan(query);
  if ("selector" in plan) return plan;
  switch (query.using) {
    case "text":
      return { expression: factsOf(textPiercingInPage, query.value, true) };
    default:
      return {
        expression: query.anchored
          ? factsOf(anchoredPiercingInPage, JSON.stringify(query.anchored), true)
          : factsOf(xpathPiercingInPage, query.value, true),
      };
  }
}

function escapeAria(s: string): string {
  return s.replace(/[\\"\[\]]/g, (c) => `\\${c}`);
}
