/// <reference lib="dom" />
/**
 * The script the human recorder injects into every document (`evaluateOnNewDocument` and the
 * open documents): capture-phase listeners that report a person's clicks, committed values
 * (change or blur), key presses (Enter, Tab, Escape), submits and scroll gestures to the recorder
 * through a CDP binding, each with the DOM selectors of its target and its coordinates. A scroll
 * gesture (the page's or an inner container's) ends 250 ms after its last scroll event and is
 * reported once, with its final position and direction — only when a wheel, touch, scrolling key
 * or scrollbar drag came within the last second, so programmatic scrolls (scrollIntoView after a
 * click, Cairn's own) are not recorded. A mutation counter
 * (`gen`) tells the recorder which snapshot shows the page as it was before the action:
 * `pre` reports at pointerdown/keydown, before any effect, and `quiet` reports when the DOM has
 * settled so a snapshot can be taken ahead of the next action.
 *
 * Self-contained: puppeteer serialises the function's source.
 *
 * @module
 */

/** What the script sends through the binding. */
export type RecorderMessage =
  | { type: "quiet" | "pre"; gen: number; url: string }
  | { type: "load"; gen: number; url: string; navigation: string }
  | { type: "spa"; gen: number; url: string }
  | {
    type: "action";
    gen: number;
    url: string;
    kind: "tap" | "inputText" | "keyPress" | "select" | "check" | "scroll";
    x: number;
    y: number;
    text?: string;
    key?: string;
    value?: string;
    checked?: boolean;
    /** Scroll: the final position of the page, or of the container the selectors name. */
    scrollX?: number;
    scrollY?: number;
    direction?: "up" | "down" | "left" | "right";
    /** Scroll: the page scrolled (no selectors), not an inner container. */
    page?: boolean;
    selectors: Record<string, string>;
  };

/**
 * Installs the recorder listeners in the page (once per document).
 *
 * @param binding the name of the CDP binding to report through
 */
export function recorderScript(binding: string): void {
  const w = window as unknown as Record<string, unknown>;
  if (w.__cairnRecorder) return;
  w.__cairnRecorder = true;
  const send = (msg: Record<string, unknown>) => {
    const fn = w[binding];
    if (typeof fn !== "function") return;
    try {
      (fn as (m: string) => void)(JSON.stringify({ gen, url: location.href, ...msg }));
    } catch {
      // the recorder went away
    }
  };
  let gen = 0;
  Object.defineProperty(w, "__cairnGen", { get: () => gen });
  let quietTimer: ReturnType<typeof setTimeout> | undefined;
  const scheduleQuiet = () => {
    clearTimeout(quietTimer);
    quietTimer = setTimeout(() => send({ type: "quiet" }), 120);
  };
  new MutationObserver(() => {
    gen++;
    scheduleQuiet();
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  // a typed value is no DOM mutation, but it changes what the next snapshot must show
  addEventListener("input", () => {
    gen++;
    scheduleQuiet();
  }, true);

  const testIdAttrs = ["data-testid", "data-test-id", "data-test", "data-qa", "data-cy"];
  const implicitRole: Record<string, string> = {
    a: "link",
    button: "button",
    select: "combobox",
    textarea: "textbox",
    h1: "heading",
    h2: "heading",
    h3: "heading",
    img: "img",
  };
  const roleOf = (el: Element): string => {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit;
    if (el instanceof HTMLInputElement) {
      const t = el.type;
      if (t === "checkbox" || t === "radio") return t;
      if (t === "submit" || t === "button" || t === "reset") return "button";
      return t === "search" ? "searchbox" : "textbox";
    }
    return implicitRole[el.tagName.toLowerCase()] ?? "";
  };
  const clean = (s: string | null | undefined) => (s ?? "").replace(/\s+/g, " ").trim();
  const nameOf = (el: Element): string => {
    const aria = el.getAttribute("aria-label");
    if (aria) return clean(aria);
    const labelled = el.getAttribute("aria-labelledby");
    if (labelled) {
      const text = labelled.split(/\s+/).map((id) => document.getElementById(id)?.textContent)
        .join(" ");
      if (clean(text)) return clean(text);
    }
    if (
      el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement ||
      el instanceof HTMLSelectElement
    ) {
      const label = el.labels?.[0];
      if (label) {
        // the label's own text, without the text of the control inside it
        const copy = label.cloneNode(true) as HTMLElement;
        copy.querySelectorAll("input,select,textarea").forEach((c) => c.remove());
        if (clean(copy.textContent)) return clean(copy.textContent);
      }
      return clean(el.getAttribute("placeholder") ?? el.getAttribute("title"));
    }
    return clean((el as HTMLElement).innerText ?? el.textContent).slice(0, 120) ||
      clean(el.getAttribute("title") ?? el.getAttribute("alt"));
  };
  const anchored = (el: Element) => el.id !== "" && /^[A-Za-z][\w-]*$/.test(el.id);
  const segment = (el: Element): string => {
    const tag = el.tagName.toLowerCase();
    if (anchored(el)) return `${tag}#${el.id}`;
    const parent = el.parentElement;
    if (!parent) return tag;
    const same = Array.from(parent.children).filter((c) => c.tagName === el.tagName);
    return same.length > 1 ? `${tag}:nth-of-type(${same.indexOf(el) + 1})` : tag;
  };
  const cssPath = (el: Element): string => {
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
  const selectorsOf = (el: Element): Record<string, string> => {
    const s: Record<string, string> = {};
    for (const a of testIdAttrs) {
      const v = el.getAttribute(a);
      if (v) {
        s.testId = v;
        break;
      }
    }
    const aria = el.getAttribute("aria-label");
    if (aria) s.ariaLabel = aria;
    const role = roleOf(el);
    if (role) s.role = role;
    const name = nameOf(el);
    if (name) s.name = name;
    if (el.id) s.id = el.id;
    const text = clean((el as HTMLElement).innerText);
    if (text && text.length <= 80 && !(el instanceof HTMLSelectElement)) s.text = text;
    s.cssPath = cssPath(el);
    s.tag = el.tagName.toLowerCase();
    return s;
  };
  const sensitive = (el: Element): boolean => {
    if (el instanceof HTMLInputElement && el.type === "password") return true;
    if (el.closest("[data-sensitive]")) return true;
    const ac = (el.getAttribute("autocomplete") ?? "").toLowerCase();
    return ac.startsWith("cc-") || ac.includes("current-password") ||
      ac.includes("new-password");
  };
  const valueOf = (el: Element, v: string) => (sensitive(el) ? "[redacted]" : v);
  const centre = (el: Element) => {
    const r = el.getBoundingClientRect();
    return { x: Math.round(r.x + r.width / 2), y: Math.round(r.y + r.height / 2) };
  };
  const targetOf = (e: Event): Element | null => {
    const t = e.composedPath()[0];
    return t instanceof Element ? t : t instanceof Text ? t.parentElement : null;
  };
  const isText = (el: Element): el is HTMLInputElement | HTMLTextAreaElement =>
    el instanceof HTMLTextAreaElement ||
    (el instanceof HTMLInputElement &&
      !["checkbox", "radio", "submit", "button", "reset", "file", "image", "range", "color"]
        .includes(el.type));
  const committed = new WeakMap<Element, string>();
  const commit = (el: Element) => {
    if (!isText(el)) return;
    const v = el.value;
    if ((committed.get(el) ?? el.defaultValue) === v) return; // untouched or already recorded
    committed.set(el, v);
    send({
      type: "action",
      kind: "inputText",
      ...centre(el),
      text: valueOf(el, v),
      selectors: selectorsOf(el),
    });
  };
  addEventListener("focusin", (e) => {
    const el = targetOf(e);
    if (el && isText(el) && !committed.has(el)) committed.set(el, el.value);
  }, true);

  let pointerGen = 0;
  let lastEnter = -Infinity;
  addEventListener("pointerdown", () => {
    flushScroll();
    pointerGen = gen;
    send({ type: "pre" });
  }, true);
  addEventListener("click", (e) => {
    const el = targetOf(e);
    if (!el || !(e as MouseEvent).isTrusted) return;
    const control = el instanceof HTMLLabelElement ? el.control : el.closest("label")?.control;
    const input = el instanceof HTMLInputElement ? el : control;
    // checkboxes, radios and selects are recorded from their change event
    if (
      input instanceof HTMLInputElement && (input.type === "checkbox" || input.type === "radio")
    ) {
      return;
    }
    if (el.closest("select")) return;
    const me = e as MouseEvent;
    // a click the Enter key caused (implicit submission, activating a button) is the key press
    if (me.detail === 0 && performance.now() - lastEnter < 500) return;
    const actionable = el.closest("a,button,[role=button],[role=link],input,label,[onclick]") ?? el;
    const keyboard = me.detail === 0 && me.clientX === 0 && me.clientY === 0;
    const at = keyboard
      ? centre(actionable)
      : { x: Math.round(me.clientX), y: Math.round(me.clientY) };
    send({
      type: "action",
      kind: "tap",
      ...at,
      selectors: selectorsOf(actionable),
      gen: pointerGen,
    });
  }, true);
  addEventListener("keydown", (e) => {
    const k = (e as KeyboardEvent).key;
    if (k !== "Enter" && k !== "Tab" && k !== "Escape") return;
    if (k === "Enter") lastEnter = performance.now();
    flushScroll();
    send({ type: "pre" });
    const el = targetOf(e);
    if (el) commit(el); // the value typed so far comes before the key that follows it
    const at = el ? centre(el) : { x: 0, y: 0 };
    send({ type: "action", kind: "keyPress", ...at, key: k, selectors: el ? selectorsOf(el) : {} });
  }, true);
  addEventListener("change", (e) => {
    const el = targetOf(e);
    if (!el) return;
    if (el instanceof HTMLSelectElement) {
      const option = el.selectedOptions[0];
      send({
        type: "action",
        kind: "select",
        ...centre(el),
        value: valueOf(el, option ? clean(option.textContent) || option.value : el.value),
        selectors: selectorsOf(el),
      });
    } else if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) {
      send({
        type: "action",
        kind: "check",
        ...centre(el),
        checked: el.checked,
        selectors: selectorsOf(el),
      });
    } else commit(el);
  }, true);
  addEventListener("focusout", (e) => {
    const el = targetOf(e);
    if (el && isText(el)) commit(el);
  }, true);
  addEventListener("submit", (e) => {
    const form = targetOf(e);
    if (form) form.querySelectorAll("input,textarea").forEach((el) => commit(el));
  }, true);

  // ---- scroll gestures ----
  const SCROLL_KEYS = new Set([
    "PageDown",
    "PageUp",
    " ",
    "ArrowDown",
    "ArrowUp",
    "ArrowLeft",
    "ArrowRight",
    "Home",
    "End",
  ]);
  let lastScrollInput = -Infinity;
  let scrollbarDrag = false;
  const userInput = () => {
    lastScrollInput = performance.now();
  };
  addEventListener("wheel", userInput, { capture: true, passive: true });
  addEventListener("touchstart", userInput, { capture: true, passive: true });
  addEventListener("touchmove", userInput, { capture: true, passive: true });
  addEventListener("keydown", (e) => {
    if (SCROLL_KEYS.has((e as KeyboardEvent).key)) userInput();
  }, true);
  // a press on a scrollbar: outside the element's client box but inside its border box
  addEventListener("pointerdown", (e) => {
    const el = targetOf(e);
    const me = e as PointerEvent;
    if (!el) return;
    const box = el.getBoundingClientRect();
    const onBar = me.clientX >= box.left + el.clientLeft + el.clientWidth ||
      me.clientY >= box.top + el.clientTop + el.clientHeight;
    const root = el === document.documentElement &&
      (me.clientX >= document.documentElement.clientWidth ||
        me.clientY >= document.documentElement.clientHeight);
    if (onBar || root) {
      scrollbarDrag = true;
      userInput();
    }
  }, true);
  addEventListener("pointerup", () => {
    if (scrollbarDrag) userInput();
    scrollbarDrag = false;
  }, true);
  interface Gesture {
    el: Element | null;
    gen: number;
    x0: number;
    y0: number;
    timer: ReturnType<typeof setTimeout>;
  }
  let gesture: Gesture | undefined;
  const positionOf = (el: Element | null) =>
    el ? { x: el.scrollLeft, y: el.scrollTop } : { x: scrollX, y: scrollY };
  const flushScroll = () => {
    const g = gesture;
    if (!g) return;
    gesture = undefined;
    clearTimeout(g.timer);
    const p = positionOf(g.el);
    const dx = p.x - g.x0;
    const dy = p.y - g.y0;
    if (dx === 0 && dy === 0) return; // scrolled back where it started
    const direction = Math.abs(dy) >= Math.abs(dx)
      ? (dy > 0 ? "down" : "up")
      : (dx > 0 ? "right" : "left");
    const at = g.el
      ? centre(g.el)
      : { x: Math.round(innerWidth / 2), y: Math.round(innerHeight / 2) };
    send({
      type: "action",
      kind: "scroll",
      ...at,
      scrollX: Math.round(p.x),
      scrollY: Math.round(p.y),
      direction,
      ...(g.el ? {} : { page: true }),
      selectors: g.el ? selectorsOf(g.el) : {},
      gen: g.gen,
    });
  };
  const starts = new WeakMap<object, { x: number; y: number }>();
  let lastPage = { x: scrollX, y: scrollY };
  addEventListener("scroll", (e) => {
    const t = e.target;
    const el = t instanceof Element && t !== document.scrollingElement ? t : null;
    const before = el ? starts.get(el) : lastPage;
    const now = positionOf(el);
    if (el) starts.set(el, now);
    else lastPage = now;
    const startGen = gen;
    // the screen changed: the next action needs a fresh snapshot
    gen++;
    scheduleQuiet();
    const userMade = scrollbarDrag || performance.now() - lastScrollInput < 1000;
    if (gesture && gesture.el !== el) flushScroll();
    if (!gesture) {
      if (!userMade) return;
      // the position before this first event: known from the previous scroll event, or unknown
      // for an element that never scrolled before (then it started where it was at the top)
      const from = before ?? { x: 0, y: 0 };
      gesture = {
        el,
        gen: startGen,
        x0: from.x,
        y0: from.y,
        timer: 0 as unknown as Gesture["timer"],
      };
    }
    clearTimeout(gesture.timer);
    gesture.timer = setTimeout(flushScroll, 250);
  }, true);

  const spa = () => send({ type: "spa" });
  for (const method of ["pushState", "replaceState"] as const) {
    const original = history[method].bind(history);
    history[method] = (...args: Parameters<History["pushState"]>) => {
      original(...args);
      spa();
    };
  }
  addEventListener("popstate", spa);
  addEventListener("hashchange", spa);
  const entry = performance.getEntriesByType("navigation")[0] as
    | PerformanceNavigationTiming
    | undefined;
  const onReady = () => {
    send({ type: "load", navigation: entry?.type ?? "navigate" });
    scheduleQuiet();
  };
  if (document.readyState === "loading") {
    addEventListener("DOMContentLoaded", onReady, { once: true });
  } else onReady();
}

/**
 * The current values of the page's sensitive fields (passwords, `data-sensitive`,
 * `autocomplete` cc-* and passwords), to scrub from a snapshot before it is stored.
 *
 * @returns the non-empty values
 */
export function sensitiveValuesInPage(): string[] {
  const out: string[] = [];
  const visit = (root: Document | ShadowRoot) => {
    root.querySelectorAll("input,textarea").forEach((el) => {
      const input = el as HTMLInputElement;
      const ac = (input.getAttribute("autocomplete") ?? "").toLowerCase();
      if (
        input.value && (input.type === "password" || input.closest("[data-sensitive]") ||
          ac.startsWith("cc-") || ac.includes("password"))
      ) out.push(input.value);
    });
    root.querySelectorAll("*").forEach((el) => {
      if (el.shadowRoot) visit(el.shadowRoot);
    });
  };
  visit(document);
  return out;
}
