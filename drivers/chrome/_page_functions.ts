/// <reference lib="dom" />
/**
 * Functions the Chrome driver runs inside the page (`page.evaluate`). Each is self-contained:
 * puppeteer serialises its source, so it may not close over anything of this module.
 *
 * @module
 */

/** What the driver learns of an element it found. */
export interface ElementFacts {
  x: number;
  y: number;
  w: number;
  h: number;
  visible: boolean;
  enabled: boolean;
  text: string;
  cssPath: string;
}

/**
 * Resolves when the document has had no mutation for `quietMs` (true) or `timeoutMs` passed
 * (false).
 */
export function waitQuietInPage(quietMs: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const done = (value: boolean) => {
      observer.disconnect();
      clearTimeout(quiet);
      clearTimeout(cap);
      resolve(value);
    };
    const observer = new MutationObserver(() => {
      clearTimeout(quiet);
      quiet = setTimeout(() => done(true), quietMs);
    });
    observer.observe(document, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    });
    quiet = setTimeout(() => done(true), quietMs);
    const cap = setTimeout(() => done(false), timeoutMs);
  });
}

/** Resolves once no scroll event fired for `quietMs` (capped at `timeoutMs`). */
export function waitScrollEndInPage(quietMs: number, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      removeEventListener("scroll", onScroll, true);
      clearTimeout(quiet);
      clearTimeout(cap);
      resolve();
    };
    const onScroll = () => {
      clearTimeout(quiet);
      quiet = setTimeout(done, quietMs);
    };
    addEventListener("scroll", onScroll, true);
    quiet = setTimeout(done, quietMs);
    const cap = setTimeout(done, timeoutMs);
  });
}

/**
 * Selects an option (by value, else by visible text) in the `<select>` at a point and fires
 * `input` and `change`. Returns an error message, or "" on success.
 */
export function selectAtInPage(x: number, y: number, value: string): string {
  let el: Element | null = document.elementFromPoint(x, y);
  for (let i = 0; i < 32 && el?.shadowRoot; i++) {
    const inner = el.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === el) break;
    el = inner;
  }
  if (el instanceof HTMLLabelElement && el.control) el = el.control;
  const select = el?.closest("select");
  if (!(select instanceof HTMLSelectElement)) {
    return `no <select> at (${x}, ${y}) (found ${el ? el.tagName.toLowerCase() : "nothing"})`;
  }
  const options = Array.from(select.options);
  const option = options.find((o) => o.value === value) ??
    options.find((o) => (o.textContent ?? "").trim() === value.trim());
  if (!option) {
    return `the <select> at (${x}, ${y}) has no option ${JSON.stringify(value)}`;
  }
  select.focus();
  select.value = option.value;
  select.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
  select.dispatchEvent(new Event("change", { bubbles: true }));
  return "";
}

/**
 * Focuses the element at a point (a label's control, else the nearest focusable element at or
 * around it) without clicking it. Returns an error message, or "" once it has the focus.
 */
export function focusAtInPage(x: number, y: number): string {
  let el: Element | null = document.elementFromPoint(x, y);
  for (let i = 0; i < 32 && el?.shadowRoot; i++) {
    const inner = el.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === el) break;
    el = inner;
  }
  if (!el) return `nothing at (${x}, ${y})`;
  if (el instanceof HTMLLabelElement && el.control) el = el.control;
  const focusable = el.closest(
    "input,textarea,select,button,a[href],[tabindex],[contenteditable=''],[contenteditable=true]",
  ) ?? el;
  if (!(focusable instanceof HTMLElement)) {
    return `the element at (${x}, ${y}) cannot take the focus`;
  }
  focusable.focus();
  let active: Element | null = document.activeElement;
  for (let i = 0; i < 32 && active?.shadowRoot?.activeElement; i++) {
    active = active.shadowRoot.activeElement;
  }
  if (active !== focusable && !(active && focusable.contains(active))) {
    return `the ${focusable.tagName.toLowerCase()} at (${x}, ${y}) did not take the focus`;
  }
  return "";
}

/**
 * The checked state of the checkbox, radio or switch at a point: true/false, or an error
 * message when there is none.
 */
export function checkedAtInPage(x: number, y: number): boolean | string {
  let el: Element | null = document.elementFromPoint(x, y);
  for (let i = 0; i < 32 && el?.shadowRoot; i++) {
    const inner = el.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === el) break;
    el = inner;
  }
  if (!el) return `nothing at (${x}, ${y})`;
  const label = el.closest("label");
  const input = el instanceof HTMLInputElement ? el : label?.control ?? null;
  if (input instanceof HTMLInputElement && (input.type === "checkbox" || input.type === "radio")) {
    return input.checked;
  }
  const aria = el.closest("[role=checkbox],[role=switch],[role=radio],[aria-checked]");
  if (aria) return aria.getAttribute("aria-checked") === "true";
  return `no checkbox or switch at (${x}, ${y}) (found ${el.tagName.toLowerCase()})`;
}

/** Selects the whole content of the focused text field (so typing replaces it). */
export function selectFocusedTextInPage(): boolean {
  let el: Element | null = document.activeElement;
  for (let i = 0; i < 32 && el?.shadowRoot?.activeElement; i++) el = el.shadowRoot.activeElement;
  if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) {
    el.select();
    return true;
  }
  if (el instanceof HTMLElement && el.isContentEditable) {
    const range = document.createRange();
    range.selectNodeContents(el);
    const sel = getSelection();
    sel?.removeAllRanges();
    sel?.addRange(range);
    return true;
  }
  return false;
}

/** Facts about elements found by a lookup: bounds, visibility, enabled, text and a CSS path. */
export function elementFactsInPage(...els: Element[]): ElementFacts[] {
  const segment = (el: Element): string => {
    const tag = el.tagName.toLowerCase();
    if (el.id && /^[A-Za-z][\w-]*$/.test(el.id)) return `${tag}#${el.id}`;
    const parent = el.parentElement;
    if (!parent) return tag;
    const same = Array.from(parent.children).filter((c) => c.tagName === el.tagName);
    return same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(el) + 1})` : tag;
  };
  const anchored = (el: Element) => el.id !== "" && /^[A-Za-z][\w-]*$/.test(el.id);
  const pathOf = (el: Element): string => {
    const chunks: string[] = [];
    let cur: Element | null = el;
    for (let depth = 0; cur && depth < 32; depth++) {
      const parts: string[] = [];
      let node: Element | null = cur;
      while (node) {
        parts.unshift(segment(node));
        if (anchored(node)) break;
        node = node.parentElement;
      }
      chunks.unshift(parts.join(" > "));
      const root: Node = cur.getRootNode();
      cur = root instanceof ShadowRoot ? root.host : null;
    }
    return chunks.join(" >>> ");
  };
  return els.map((el) => {
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    const visible = r.width > 0 && r.height > 0 && style.visibility !== "hidden" &&
      style.display !== "none" && Number(style.opacity) > 0;
    const enabled = !(el as HTMLButtonElement).disabled &&
      el.getAttribute("aria-disabled") !== "true";
    const raw = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement
      ? el.value
      : (el as HTMLElement).innerText ?? el.textContent ?? "";
    return {
      x: r.x,
      y: r.y,
      w: r.width,
      h: r.height,
      visible,
      enabled,
      text: raw.replace(/\s+/g, " ").trim().slice(0, 500),
      cssPath: pathOf(el),
    };
  });
}

/**
 * Elements under `root` (the document or an element) and inside every open shadow root below
 * it whose text is `text`: exactly as an own text node, else whitespace-normalised as the full
 * text of the deepest element, else the same case-insensitively — the tiers of the playback
 * cascade's `textQueries`, never a substring. Returns the first tier that matches anything.
 * Run as a puppeteer query handler: self-contained.
 */
export function textPiercingInPage(root: Node, text: string): Element[] {
  // XPath's normalize-space() collapses space, tab, CR and LF only.
  const norm = (s: string) => s.replace(/[ \t\r\n]+/g, " ").trim();
  const start = root instanceof Document ? root.body ?? root.documentElement : root;
  const els: Element[] = [];
  const visit = (scope: Node, depth: number) => {
    if (depth > 32) return;
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_ELEMENT);
    for (let n = walker.nextNode(); n && els.length < 100_000; n = walker.nextNode()) {
      const el = n as Element;
      const tag = el.localName;
      if (tag !== "script" && tag !== "style" && tag !== "template") els.push(el);
      if (el.shadowRoot) visit(el.shadowRoot, depth + 1);
    }
  };
  if (start) visit(start, 0);
  const exact = els.filter((el) =>
    Array.from(el.childNodes).some((c) => c.nodeType === Node.TEXT_NODE && c.nodeValue === text)
  );
  if (exact.length > 0) return exact;
  // Deepest element whose full text (its own tree's text content) matches: no element child
  // matches too.
  const deepest = (key: (s: string) => string, want: string) =>
    els.filter((el) =>
      key(el.textContent ?? "") === want &&
      !Array.from(el.querySelectorAll("*")).some((d) => key(d.textContent ?? "") === want)
    );
  const want = norm(text);
  const normalised = deepest(norm, want);
  if (normalised.length > 0) return normalised;
  return deepest((s) => norm(s).toLowerCase(), want.toLowerCase());
}

/**
 * Evaluates an XPath in the document and, when it is a `//body//…` search, also in every
 * open shadow root, so the cascade's text and pattern lookups reach shadow DOM. Matches in
 * the document come first, then those of each shadow root in tree order. Run as a puppeteer
 * query handler: self-contained.
 */
export function xpathPiercingInPage(root: Node, xpath: string): Element[] {
  const out: Element[] = [];
  const seen = new Set<Node>();
  const run = (expr: string, context: Node) => {
    const r = document.evaluate(expr, context, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    for (let i = 0; i < r.snapshotLength; i++) {
      const n = r.snapshotItem(i);
      if (n instanceof Element && !seen.has(n)) {
        seen.add(n);
        out.push(n);
      }
    }
  };
  run(xpath, root);
  const prefix = "//body//";
  if (!xpath.startsWith(prefix)) return out;
  // A shadow root is no valid XPath context node, but its parent axis is: `..//` from its
  // first element reaches the whole shadow tree.
  const relative = `..//${xpath.slice(prefix.length)}`;
  let budget = 1_000;
  const visit = (scope: Node, depth: number) => {
    if (depth > 32) return;
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_ELEMENT);
    for (let n = walker.nextNode(); n && budget > 0; n = walker.nextNode()) {
      const shadow = (n as Element).shadowRoot;
      if (!shadow) continue;
      budget--;
      if (shadow.firstElementChild) run(relative, shadow.firstElementChild);
      visit(shadow, depth + 1);
    }
  };
  visit(root instanceof Document ? root.documentElement : root, 0);
  return out;
}

/**
 * The playback cascade's row-anchored lookup (`RowAnchored` of `engine/playback/cascade.ts`,
 * a JSON payload `{ element, texts }`) in one pass over the page: the elements of
 * `//body//*E[ancestor::*[.//text()[T0]][1][count(.//*E) = 1][ancestor-or-self::*[.//text()[T1]][1][count(.//text()[T0]) = 1]…]]`,
 * in the document and, as {@linkcode xpathPiercingInPage} does, in every open shadow root.
 * That XPath scans the page again for every ancestor of every candidate (quadratic: seconds on
 * a 500-row list); here XPath only finds the elements `//*E` and the anchor text nodes
 * `//text()[Tk]` once each, counts them into their ancestors, and walks up from each
 * candidate to its nearest ancestor showing the anchor. Run as a puppeteer query handler:
 * self-contained.
 */
export function anchoredPiercingInPage(root: Node, payload: string): Element[] {
  const { element, texts } = JSON.parse(payload) as { element: string; texts: string[] };
  const out: Element[] = [];
  const seen = new Set<Node>();
  const nodes = (expr: string, context: Node): Node[] => {
    const r = document.evaluate(expr, context, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    const list: Node[] = [];
    for (let i = 0; i < r.snapshotLength; i++) list.push(r.snapshotItem(i)!);
    return list;
  };
  // How many of `found` lie strictly below each element (parentElement stops at a shadow root,
  // as XPath's ancestor::* does).
  const countUp = (found: readonly Node[]): Map<Element, number> => {
    const counts = new Map<Element, number>();
    for (const n of found) {
      for (let a = n.parentElement; a; a = a.parentElement) counts.set(a, (counts.get(a) ?? 0) + 1);
    }
    return counts;
  };
  const underBody = (el: Element): boolean => {
    for (let a = el.parentElement; a; a = a.parentElement) if (a.localName === "body") return true;
    return false;
  };
  /** One tree: `prefix` is `//` from the document, `..//` from a shadow root's first element. */
  const pick = (prefix: string, context: Node, inDocument: boolean) => {
    const matches = nodes(`${prefix}*${element}`, context).filter((n): n is Element =>
      n instanceof Element
    );
    if (matches.length === 0) return;
    const below = countUp(matches);
    const anchors = texts.map((t) => countUp(nodes(`${prefix}text()[${t}]`, context)));
    const nearest = (from: Element | null, showing: Map<Element, number>): Element | null => {
      let a = from;
      while (a && !showing.has(a)) a = a.parentElement;
      return a;
    };
    for (const m of matches) {
      if (seen.has(m) || (inDocument && !underBody(m))) continue;
      let row = nearest(m.parentElement, anchors[0]!);
      if (!row || below.get(row) !== 1) continue;
      for (let k = 1; row && k < texts.length; k++) {
        const outer = nearest(row, anchors[k]!);
        row = outer && anchors[k - 1]!.get(outer) === 1 ? outer : null;
      }
      if (!row) continue;
      seen.add(m);
      out.push(m);
    }
  };
  pick("//", root, true);
  let budget = 1_000;
  const visit = (scope: Node, depth: number) => {
    if (depth > 32) return;
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_ELEMENT);
    for (let n = walker.nextNode(); n && budget > 0; n = walker.nextNode()) {
      const shadow = (n as Element).shadowRoot;
      if (!shadow) continue;
      budget--;
      if (shadow.firstElementChild) pick("..//", shadow.firstElementChild, false);
      visit(shadow, depth + 1);
    }
  };
  visit(root instanceof Document ? root.documentElement : root, 0);
  return out;
}

/**
 * One level of a scoped lookup's ancestor (`ScopeLookup` of `engine/playback/cascade.ts`): the
 * candidates (`aria`'s elements given as arguments, else every element matching `css`, through
 * open shadow roots), kept when they match `css`, lie inside one of the previous level's
 * elements (kept on the page under `Symbol.for("cairn.scope")`, when `inner` says there is one),
 * show `text` (a text node, whitespace-normalised, ASCII case-insensitive) and a text `textRegex`
 * matches whole; `index` keeps the n-th. The result replaces the kept elements; returns how many.
 * Self-contained.
 */
export function scopeLevelInPage(payload: string, ...given: Element[]): number {
  const spec = JSON.parse(payload) as {
    css?: string;
    aria?: string;
    role?: string;
    text?: string;
    textRegex?: string;
    index?: number;
    inner?: boolean;
  };
  const key = Symbol.for("cairn.scope");
  const g = globalThis as unknown as Record<symbol, Element[] | undefined>;
  const previous = spec.inner ? g[key] ?? [] : undefined;
  const all = (css: string): Element[] => {
    const out: Element[] = [];
    const visit = (root: Document | ShadowRoot, depth: number) => {
      if (depth > 32) return;
      for (const el of Array.from(root.querySelectorAll("*"))) {
        if (el.matches(css)) out.push(el);
        if (el.shadowRoot) visit(el.shadowRoot, depth + 1);
      }
    };
    visit(document, 0);
    return out;
  };
  const parentOf = (el: Element): Element | null => {
    if (el.parentElement) return el.parentElement;
    const root = el.getRootNode();
    return root instanceof ShadowRoot ? root.host : null;
  };
  const roots = previous ? new Set(previous) : undefined;
  const inside = (el: Element, set: ReadonlySet<Element>): boolean => {
    for (let p = parentOf(el); p; p = parentOf(p)) if (set.has(p)) return true;
    return false;
  };
  const norm = (s: string) => s.replace(/[ \t\r\n]+/g, " ").trim();
  const texts = (el: Element): string[] => {
    const out: string[] = [];
    const visit = (n: Node) => {
      for (const c of Array.from(n.childNodes)) {
        if (c.nodeType === Node.TEXT_NODE) {
          const t = norm(c.nodeValue ?? "");
          if (t) out.push(t);
        } else if (c.nodeType === Node.ELEMENT_NODE) {
          const e = c as Element;
          if (e.tagName !== "SCRIPT" && e.tagName !== "STYLE") visit(e);
          if (e.shadowRoot) visit(e.shadowRoot);
        }
      }
    };
    visit(el);
    return out;
  };
  const lower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const want = spec.text !== undefined ? lower(norm(spec.text)) : undefined;
  const re = spec.textRegex !== undefined ? new RegExp(`^(?:${spec.textRegex})$`, "s") : undefined;
  // a role without a name: the role attribute's first token, else the tag's implicit ARIA role
  // (HTML-AAM, the common elements), computed here instead of one handle per element
  const implicit = (el: Element): string => {
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute("type") ?? "").toLowerCase();
    if (/^h[1-6]$/.test(tag)) return "heading";
    if (tag === "a" || tag === "area") return el.hasAttribute("href") ? "link" : "generic";
    if (tag === "input") {
      if (["button", "submit", "reset", "image"].includes(type)) return "button";
      if (type === "checkbox" || type === "radio") return type;
      if (type === "range") return "slider";
      if (type === "number") return "spinbutton";
      if (type === "search") return "searchbox";
      return el.hasAttribute("list") ? "combobox" : "textbox";
    }
    if (tag === "select") {
      return (el as HTMLSelectElement).multiple || (el as HTMLSelectElement).size > 1
        ? "listbox"
        : "combobox";
    }
    if (tag === "img") return el.getAttribute("alt") === "" ? "presentation" : "img";
    const table: Record<string, string> = {
      article: "article",
      aside: "complementary",
      button: "button",
      datalist: "listbox",
      dd: "definition",
      details: "group",
      dialog: "dialog",
      dt: "term",
      fieldset: "group",
      figure: "figure",
      footer: "contentinfo",
      form: "form",
      header: "banner",
      hr: "separator",
      li: "listitem",
      main: "main",
      menu: "list",
      nav: "navigation",
      ol: "list",
      ul: "list",
      optgroup: "group",
      option: "option",
      output: "status",
      progress: "progressbar",
      section: "region",
      table: "table",
      tbody: "rowgroup",
      thead: "rowgroup",
      tfoot: "rowgroup",
      td: "cell",
      th: "columnheader",
      tr: "row",
      textarea: "textbox",
    };
    return table[tag] ?? "generic";
  };
  const roleOf = (el: Element): string =>
    (el.getAttribute("role") ?? "").trim().split(/\s+/)[0] || implicit(el);
  const seen = new Set<Element>();
  let found = (spec.aria !== undefined ? given : all(spec.css ?? "*")).filter((el) =>
    !seen.has(el) && seen.add(el) !== undefined &&
    (spec.css === undefined || el.matches(spec.css)) &&
    (roots === undefined || inside(el, roots)) &&
    (spec.role === undefined || roleOf(el) === spec.role) &&
    (want === undefined || texts(el).some((t) => lower(t) === want)) &&
    (re === undefined || texts(el).some((t) => re.test(t)))
  );
  if (spec.aria !== undefined) {
    // the aria query's order is the tree's; keep document order as every other lookup does
    found.sort((a, b) =>
      a === b ? 0 : a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1
    );
  }
  if (spec.index !== undefined) found = found.length > spec.index ? [found[spec.index]!] : [];
  g[key] = found;
  return found.length;
}

/**
 * The elements of `els` that lie inside (strictly below, through shadow hosts) one of the
 * elements {@linkcode scopeLevelInPage} kept. Self-contained.
 */
export function inScopeInPage(els: Element[]): Element[] {
  const roots = new Set(
    (globalThis as unknown as Record<symbol, Element[] | undefined>)[Symbol.for("cairn.scope")] ??
      [],
  );
  const parentOf = (el: Element): Element | null => {
    if (el.parentElement) return el.parentElement;
    const root = el.getRootNode();
    return root instanceof ShadowRoot ? root.host : null;
  };
  return els.filter((el) => {
    for (let p = parentOf(el); p; p = parentOf(p)) if (roots.has(p)) return true;
    return false;
  });
}

/**
 * Hides the text of every filled secret field until the returned function is called: a password
 * input (Chrome draws one dot a character, so a screenshot would show the password's length) and
 * every other field whose value the recorders redact (an `autocomplete` of `cc-*`, or of a
 * current or new password; a field in or under `data-sensitive`), whose text a screenshot would
 * show outright. A constructed style sheet is adopted by each document and open shadow root
 * (same-origin frames included) that holds one, making the text, its selection and the caret
 * transparent. No DOM node is added and color takes no room, so the page sees no mutation, input
 * or layout shift.
 *
 * @returns the undo (it drops the adopted sheets), or null when no secret field holds a value
 */
export function maskSecretFieldsInPage(): (() => void) | null {
  const FIELDS = [
    'input[type="password" i]',
    ':is(input, textarea)[autocomplete^="cc-" i]',
    ':is(input, textarea)[autocomplete*="current-password" i]',
    ':is(input, textarea)[autocomplete*="new-password" i]',
    ":is(input, textarea)[data-sensitive]",
    "[data-sensitive] :is(input, textarea)",
  ].join(", ");
  // :is() takes its most specific argument's weight: three ids beat a page's own !important rule
  const FIELD = `:is(${FIELDS}, #cairn-mask#cairn-mask#cairn-mask)`;
  const HIDE = "color: transparent !important; -webkit-text-fill-color: transparent !important;" +
    " text-shadow: none !important; caret-color: transparent !important;";
  const css = `${FIELD} { ${HIDE} } ${FIELD}::selection { ${HIDE} background: transparent ` +
    "!important; }";
  const undo: (() => void)[] = [];
  const sheets = new Map<Document, CSSStyleSheet>();
  const visit = (root: Document | ShadowRoot, depth: number) => {
    if (depth > 32) return;
    // a frame's document is no `Document` of this window (another realm): ask its node type
    const doc = root.nodeType === Node.DOCUMENT_NODE ? root as Document : root.ownerDocument!;
    const filled = [...root.querySelectorAll<HTMLInputElement>(FIELDS)].some((i) => i.value !== "");
    if (filled && doc.defaultView) {
      let sheet = sheets.get(doc);
      if (!sheet) {
        sheet = new doc.defaultView.CSSStyleSheet();
        sheet.replaceSync(css);
        sheets.set(doc, sheet);
      }
      const own = sheet;
      root.adoptedStyleSheets = [...root.adoptedStyleSheets, own];
      undo.push(() => {
        root.adoptedStyleSheets = root.adoptedStyleSheets.filter((s) => s !== own);
      });
    }
    const walker = doc.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n as Element;
      if (el.shadowRoot) visit(el.shadowRoot, depth + 1);
      if (el.tagName === "IFRAME") {
        let inner: Document | null = null;
        try {
          inner = (el as HTMLIFrameElement).contentDocument;
        } catch { /* another origin */ }
        if (inner) visit(inner, depth + 1);
      }
    }
  };
  visit(document, 0);
  if (undo.length === 0) return null;
  return () => {
    for (const u of undo) u();
  };
}
