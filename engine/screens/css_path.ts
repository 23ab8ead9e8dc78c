/**
 * CSS helpers for web nodes: escaping identifiers, telling generated class names and ids
 * (CSS-in-JS hashes, CSS modules, framework counters) from authored ones, and building a CSS
 * path over a flat DOM (`DOMSnapshot` arrays) that skips the generated ones.
 *
 * @module
 */

/**
 * Escapes a string for use as a CSS identifier (like `CSS.escape`).
 *
 * @param ident the raw identifier
 * @returns the escaped identifier
 * @example
 * ```ts
 * if (cssEscape("1a b") !== "\\31 a\\ b") throw new Error();
 * ```
 */
export function cssEscape(ident: string): string {
  let out = "";
  for (let i = 0; i < ident.length; i++) {
    const ch = ident[i]!;
    const code = ident.charCodeAt(i);
    if (code === 0) out += "\uFFFD";
    else if (
      (code >= 1 && code <= 31) || code === 127 ||
      (i === 0 && code >= 48 && code <= 57) ||
      (i === 1 && code >= 48 && code <= 57 && ident[0] === "-")
    ) out += `\\${code.toString(16)} `;
    else if (i === 0 && ident.length === 1 && ch === "-") out += "\\-";
    else if (code >= 128 || ch === "-" || ch === "_" || /[0-9A-Za-z]/.test(ch)) out += ch;
    else out += `\\${ch}`;
  }
  return out;
}

/** Class names that are generated per build or per render (never durable). */
const GENERATED_CLASS = [
  /^(css|sc|jsx|emotion|styled|tw|svelte|astro|ng-tns|ng-star|makeStyles)-/i, // CSS-in-JS / framework prefixes
  /^_[0-9a-zA-Z_-]{4,}$/, // hashed CSS modules (`_3xYz1`)
  /__[0-9a-zA-Z_-]{5}$/, // CSS modules `Button_primary__3fGh2`
  /(?=[0-9a-f]*\d)[0-9a-f]{6,}/i, // long hex hashes
  /^[a-zA-Z]{1,3}[0-9][a-zA-Z0-9]{3,}$/, // short hashes like `e1x2y3`, `a9Bc2`
  /\d{3,}/, // counters (`ember123`, `item-4821`)
];

/**
 * Whether a class name or id looks generated (build hash, CSS-in-JS, counter) rather than
 * authored.
 *
 * @param name the class name or id
 * @returns true when it should not be used in a durable selector
 * @example
 * ```ts
 * if (!isGeneratedName("css-1x2y3z4") || isGeneratedName("submit-button")) throw new Error();
 * ```
 */
export function isGeneratedName(name: string): boolean {
  if (name.startsWith(":") || /^[0-9]/.test(name)) return true; // React useId `:r1:`
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-/i.test(name)) return true; // uuid
  return GENERATED_CLASS.some((re) => re.test(name));
}

/** The flat DOM a CSS path is built over (one entry per DOM node, `DOMSnapshot` order). */
export interface FlatDom {
  /** Parent index, -1 for the document. */
  parent: Int32Array;
  /** Lower-case tag name for elements, "" for other node types. */
  tag: string[];
  /** The `id` attribute ("" when none). */
  id: string[];
  /** The `class` attribute ("" when none). */
  className: string[];
  /** 1 when the node lives in a shadow tree (`DOMSnapshot` flattens shadow roots away). */
  inShadow: Uint8Array;
}

/**
 * Builds CSS paths over a flat DOM, memoized per node: `#id` anchors (authored ids only),
 * `tag.class` segments (authored classes only, at most two), `:nth-of-type(k)` when siblings
 * would otherwise match, ` >>> ` across shadow roots (puppeteer's deep combinator).
 */
export class CssPathBuilder {
  #dom: FlatDom;
  #memo = new Map<number, string>();
  #children: number[][] | undefined;

  /** @param dom the flat DOM */
  constructor(dom: FlatDom) {
    this.#dom = dom;
  }

  /**
   * The CSS path of an element.
   *
   * @param index the element's index in the flat DOM
   * @returns the path, or "" when the node is not an element
   */
  path(index: number): string {
    const memo = this.#memo.get(index);
    if (memo !== undefined) return memo;
    const dom = this.#dom;
    const tag = dom.tag[index] ?? "";
    if (tag === "" || tag.startsWith("::")) return ""; // not an element, or a pseudo-element
    const id = dom.id[index]!;
    let result: string;
    if (id !== "" && !isGeneratedName(id)) result = `#${cssEscape(id)}`;
    else if (tag === "html") result = "html";
    else {
      const seg = this.#segment(index, tag);
      const parent = dom.parent[index]!;
      if (parent < 0) result = seg;
      else if (dom.inShadow[index] === 1 && dom.inShadow[parent] !== 1) {
        const hostPath = this.path(parent); // the parent is the shadow host
        result = hostPath === "" ? seg : `${hostPath} >>> ${seg}`;
      } else {
        const up = this.path(parent);
        result = up === "" || up === "html" ? seg : `${up} > ${seg}`;
      }
    }
    this.#memo.set(index, result);
    return result;
  }

  #segment(index: number, tag: string): string {
    const dom = this.#dom;
    const classes = stableClasses(dom.className[index]!);
    let seg = cssEscape(tag) + classes.map((c) => "." + cssEscape(c)).join("");
    const parent = dom.parent[index]!;
    if (parent < 0 || tag === "body") return seg;
    const siblings = this.#childrenOf(parent);
    let position = 0;
    let ordinal = 0;
    let clash = false;
    for (const s of siblings) {
      if (dom.tag[s] !== tag) continue;
      position++;
      if (s === index) ordinal = position;
      else if (classes.every((c) => hasClass(dom.className[s]!, c))) clash = true;
    }
    if (clash) seg += `:nth-of-type(${ordinal})`;
    return seg;
  }

  #childrenOf(parent: number): number[] {
    if (!this.#children) {
      const kids: number[][] = Array.from({ length: this.#dom.parent.length }, () => []);
      this.#dom.parent.forEach((p, i) => {
        if (p >= 0) kids[p]!.push(i);
      });
      this.#children = kids;
    }
    return this.#children[parent] ?? [];
  }
}

function stableClasses(classAttr: string): string[] {
  if (classAttr === "") return [];
  return classAttr.split(/\s+/).filter((c) => c !== "" && !isGeneratedName(c)).slice(0, 2);
}

function hasClass(classAttr: string, c: string): boolean {
  return classAttr.split(/\s+/).includes(c);
}
