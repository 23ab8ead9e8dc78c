/**
 * Turns a {@linkcode FindQuery} into a puppeteer selector: `css` pierces shadow DOM, `aria`
 * takes `role|name`, `text` matches exactly, then whitespace-normalised, then case-insensitively
 * (never a substring) through open shadow roots, and a `//body//…` `xpath` is evaluated in
 * every open shadow root too (the playback cascade's text levels are such XPaths).
 *
 * @module
 */
import { Puppeteer } from "puppeteer-core";
import { DriverError, type FindQuery } from "../driver.ts";
import { textPiercingInPage, xpathPiercingInPage } from "./_page_functions.ts";

/** Query handler names registered with puppeteer (latin letters only). */
const TEXT_HANDLER = "cairnText";
const XPATH_HANDLER = "cairnXpath";

/** Registers the shadow-piercing text and XPath handlers once per process. */
function ensureHandlers(): void {
  const names = Puppeteer.customQueryHandlerNames();
  if (!names.includes(TEXT_HANDLER)) {
    Puppeteer.registerCustomQueryHandler(TEXT_HANDLER, { queryAll: textPiercingInPage });
  }
  if (!names.includes(XPATH_HANDLER)) {
    Puppeteer.registerCustomQueryHandler(XPATH_HANDLER, { queryAll: xpathPiercingInPage });
  }
}

/**
 * The puppeteer selector of a lookup.
 *
 * @param query the lookup (`css`, `aria`, `text`, `xpath`)
 * @returns a selector for `page.$$`
 * @throws {DriverError} when the strategy is unknown or the value is empty
 * @example
 * ```ts
 * import { findSelector } from "./_find.ts";
 * if (findSelector({ using: "aria", value: "button|Sign in" }) !== 'aria/Sign in[role="button"]') {
 *   throw new Error();
 * }
 * ```
 */
export function findSelector(query: FindQuery): string {
  if (query.value.trim() === "") {
    throw new DriverError(`Cannot find by ${query.using}: the value is empty`, "bad_query");
  }
  switch (query.using) {
    case "css":
      // `>>>` already crosses shadow roots; otherwise search every root with pierce/.
      return query.value.includes(">>>") ? query.value : `pierce/${query.value}`;
    case "aria": {
      const bar = query.value.indexOf("|");
      const role = bar >= 0 ? query.value.slice(0, bar).trim() : query.value.trim();
      const name = bar >= 0 ? query.value.slice(bar + 1).trim() : "";
      return `aria/${escapeAria(name)}${role ? `[role="${escapeAria(role)}"]` : ""}`;
    }
    case "text":
      ensureHandlers();
      return `${TEXT_HANDLER}/${query.value}`;
    case "xpath":
      ensureHandlers();
      return `${XPATH_HANDLER}/${query.value}`;
    default:
      throw new DriverError(
        `Cannot find by ${JSON.stringify(query.using)}: use css, aria, text or xpath`,
        "unsupported_query",
      );
  }
}

function escapeAria(s: string): string {
  return s.replace(/[\\"\[\]]/g, (c) => `\\${c}`);
}
