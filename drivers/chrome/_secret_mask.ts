/**
 * Page functions that keep a session's secrets out of its screenshots whatever the page does
 * with them: a password field switched to `type=text` by a "show password" toggle, or a page
 * that echoes what was typed as text. Run in the page through CDP (each is self-contained:
 * `toString()`'d into an expression). Private to the Chrome driver.
 *
 * @module
 */

/**
 * The values of the filled secret fields of a page (password, card and `data-sensitive` fields,
 * shadow roots and same-origin frames included): the driver remembers them as secrets, so the
 * field stays masked after its `type` changes.
 *
 * @returns the non-empty values
 */
export function secretFieldValuesInPage(): string[] {
  const FIELDS = [
    'input[type="password" i]',
    ':is(input, textarea)[autocomplete^="cc-" i]',
    ':is(input, textarea)[autocomplete*="current-password" i]',
    ':is(input, textarea)[autocomplete*="new-password" i]',
    ":is(input, textarea)[data-sensitive]",
    "[data-sensitive] :is(input, textarea)",
  ].join(", ");
  const out: string[] = [];
  const visit = (root: Document | ShadowRoot, depth: number) => {
    if (depth > 32) return;
    for (const f of root.querySelectorAll<HTMLInputElement>(FIELDS)) {
      if (f.value !== "") out.push(f.value);
    }
    // a frame's document is no `Document` of this window (another realm): ask its node type
    const doc = root.nodeType === Node.DOCUMENT_NODE ? root as Document : root.ownerDocument!;
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
  return out.slice(0, 200);
}

/**
 * Whether the focused element (through shadow roots and same-origin frames) is a secret field:
 * what is typed into it is a secret.
 *
 * @returns true for a password, card or `data-sensitive` field
 */
export function focusedIsSecretInPage(): boolean {
  let el: Element | null = document.activeElement;
  for (let i = 0; el && i < 32; i++) {
    const inner: Element | null = el.shadowRoot?.activeElement ??
      (el.tagName === "IFRAME"
        ? (() => {
          try {
            return (el as HTMLIFrameElement).contentDocument?.activeElement ?? null;
          } catch {
            return null;
          }
        })()
        : null);
    if (!inner || inner === el) break;
    el = inner;
  }
  if (!el || !(el instanceof HTMLElement)) return false;
  const tag = el.tagName;
  if (tag !== "INPUT" && tag !== "TEXTAREA") return false;
  const type = (el.getAttribute("type") ?? "").toLowerCase();
  const auto = (el.getAttribute("autocomplete") ?? "").toLowerCase();
  return type === "password" || auto.startsWith("cc-") || auto.includes("current-password") ||
    auto.includes("new-password") || el.closest("[data-sensitive]") !== null;
}

/**
 * Hides every place a secret shows on the page for a screenshot: a field whose value holds one
 * (whatever its `type` now) gets transparent text, and each text node holding one is painted
 * over with an opaque box at its place on screen. A secret shorter than 4 characters is matched
 * only as a whole value or a whole text (as a part of text it would match ordinary words).
 *
 * @param secrets the session's secrets
 * @returns the function that undoes it, or null when nothing was hidden
 */
export function maskSecretValuesInPage(secrets: string[]): (() => void) | null {
  const MIN = 4;
  const long = secrets.filter((s) => s.length >= MIN);
  const short = new Set(secrets.filter((s) => s.length > 0 && s.length < MIN));
  if (long.length === 0 && short.size === 0) return null;
  const holds = (s: string) => {
    if (s === "") return false;
    if (short.has(s.trim())) return true;
    for (const secret of long) if (s.includes(secret)) return true;
    return false;
  };
  const undo: (() => void)[] = [];
  const boxes: { x: number; y: number; w: number; h: number }[] = [];
  const PROPS = ["color", "-webkit-text-fill-color", "text-shadow", "caret-color"];
  const hideField = (el: HTMLInputElement | HTMLTextAreaElement) => {
    const before = PROPS.map((p) => [
      p,
      el.style.getPropertyValue(p),
      el.style.getPropertyPriority(p),
    ]);
    for (const p of PROPS) {
      el.style.setProperty(p, p === "text-shadow" ? "none" : "transparent", "important");
    }
    undo.push(() => {
      for (const [p, v, prio] of before) {
        if (v) el.style.setProperty(p!, v, prio!);
        else el.style.removeProperty(p!);
      }
    });
  };
  const visit = (root: Document | ShadowRoot, dx: number, dy: number, depth: number) => {
    if (depth > 32) return;
    // a frame's document is no `Document` of this window (another realm): ask its node type
    const doc = root.nodeType === Node.DOCUMENT_NODE ? root as Document : root.ownerDocument!;
    const walker = doc.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.nodeType === Node.TEXT_NODE) {
        if (!holds(n.nodeValue ?? "")) continue;
        const range = doc.createRange();
        range.selectNodeContents(n);
        for (const r of range.getClientRects()) {
          if (r.width > 0 && r.height > 0) {
            boxes.push({ x: r.left + dx, y: r.top + dy, w: r.width, h: r.height });
          }
        }
        continue;
      }
      const el = n as Element;
      if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") {
        const f = el as HTMLInputElement;
        if (holds(f.value)) hideField(f);
      }
      if (el.shadowRoot) visit(el.shadowRoot, dx, dy, depth + 1);
      if (el.tagName === "IFRAME") {
        let inner: Document | null = null;
        try {
          inner = (el as HTMLIFrameElement).contentDocument;
        } catch { /* another origin */ }
        if (inner) {
          const r = el.getBoundingClientRect();
          visit(inner, dx + r.left + el.clientLeft, dy + r.top + el.clientTop, depth + 1);
        }
      }
    }
  };
  visit(document, 0, 0, 0);
  if (boxes.length > 0) {
    const layer = document.createElement("div");
    layer.setAttribute("aria-hidden", "true");
    layer.style.cssText = "position: fixed !important; inset: 0 !important; " +
      "pointer-events: none !important; z-index: 2147483647 !important; " +
      "margin: 0 !important; padding: 0 !important; border: 0 !important; " +
      "display: block !important; visibility: visible !important; opacity: 1 !important;";
    for (const b of boxes.slice(0, 2000)) {
      const box = document.createElement("div");
      box.style.cssText = `position: absolute !important; left: ${b.x - 1}px; top: ${
        b.y - 1
      }px; width: ${b.w + 2}px; height: ${b.h + 2}px; background: #000 !important;`;
      layer.appendChild(box);
    }
    document.documentElement.appendChild(layer);
    undo.push(() => layer.remove());
  }
  if (undo.length === 0) return null;
  return () => {
    for (const u of undo) u();
  };
}
