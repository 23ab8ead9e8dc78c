/**
 * The strings of web lookups: CSS and XPath string literals, the text queries a level tries
 * (exact, whitespace-normalised, case-insensitive), generated classes stripped from a CSS path,
 * and the literal parts of a text pattern.
 *
 * @module
 */
import type { LookupQuery } from "./cascade_levels.ts";

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
 * Removes generated class names from a CSS path (the cascade's CSS path with dynamic class
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
 * XPath of the elements whose text contains `text` (whitespace-normalised) and none of whose
 * descendants does: Chrome's `text/` query (puppeteer's text handler), scripts and styles left
 * out as it leaves them out.
 */
export function deepestContaining(text: string): string {
  const want = xpathString(text.replace(/\s+/g, " ").trim());
  const el = `*[not(self::script or self::style)][contains(normalize-space(.), ${want})]`;
  return `//body//${el}[not(.//${el})]`;
}

/** XPath: a text node equal to `text`, whitespace-normalised and ASCII case-insensitively. */
export function textNodeIs(text: string): string {
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
