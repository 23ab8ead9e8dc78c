/// <reference lib="dom" />
/**
 * The script the human recorder injects into every document (`evaluateOnNewDocument` and the
 * open documents): capture-phase listeners that report a person's clicks and double clicks,
 * committed values (change or blur, of text fields and contenteditable elements), key presses
 * (Enter, Tab, Escape), submits, scroll gestures and history traversals (Back, Forward) to the
 * recorder through a CDP binding, each with the DOM selectors of its target, its coordinates and
 * the time it happened in the page (`t`, epoch milliseconds). A scroll gesture (the page's or an
 * inner container's) ends 250 ms after its last scroll event and is reported once, with its final
 * position and direction — only when a wheel, touch, scrolling key or scrollbar drag came within
 * the last second, so programmatic scrolls (scrollIntoView after a click, Cairn's own) are not
 * recorded.
 *
 * Before-the-action screens: a counter (`gen`) of the document's DOM mutations, typed values and
 * scrolls, and a random id of the document (`doc`), tell the recorder which snapshot shows the
 * page as it was when the person pressed: `pre` reports at pointerdown and at the keys that act
 * (before any listener of the page runs: these listeners are the first), `quiet` when the DOM has
 * settled, `load` when a document starts; every action carries the count of the press that caused
 * it, with the counts of the person's input events (`inputs`) and of the changes made while one
 * was being handled (`effects`) at that press. The recorder cannot capture inside the event (the
 * accessibility tree comes from CDP, and a page paused in the debugger drops the input that
 * arrives meanwhile): a snapshot at the action's own count is exact; one taken after the press
 * while only the page itself changed (a timer, the network: neither count moved) is `changing`;
 * any other is older, and said to be.
 *
 * The page itself (`html`, `body`: a click on the background, a key with nothing focused) is
 * reported with `root` and no selector built from the text it shows; a committed value carries
 * when its first keystroke came (`startedAt`); a tab turning visible reports `visible` (a tab
 * switch). It does not install in the browser's own pages (`chrome://`, `devtools://`) nor in
 * frames (the top document's alone: a frame's clicks are not recorded).
 *
 * Self-contained: puppeteer serialises the function's source.
 *
 * @module
 */

/** Fields every message carries. */
interface MessageBase {
  /** Mutation count of the document when the message was sent (an action: at its press). */
  gen: number;
  url: string;
  /** Random id of the document (a page restored from the back/forward cache keeps its own). */
  doc?: string;
  /** When it happened in the page: `performance.timeOrigin + performance.now()`, epoch ms. */
  t?: number;
  /**
   * A press and an action taken at one: the count of the person's input events (presses,
   * releases, clicks, keys, wheels) with that press — while it stands still, no later input was
   * handled.
   */
  inputs?: number;
  /**
   * A press and an action taken at one: the count of changes made while an input event was being
   * handled (mutations inside its listeners, typed values, scrolls) when the press came — while it
   * stands still, the page changed only by itself.
   */
  effects?: number;
}

/** A history traversal's direction, when the page can tell. */
export type Traverse = "back" | "forward" | "unknown";

/** What the script sends through the binding. */
export type RecorderMessage =
  | MessageBase & { type: "quiet" | "pre" }
  /** The page itself called `history.back()` / `go()` / `navigation.traverseTo()`. */
  | MessageBase & { type: "scripted" }
  | MessageBase & {
    type: "load";
    /** The navigation type of the document (`navigate`, `reload`, `back_forward`). */
    navigation: string;
    /** Shown again from the back/forward cache (`pageshow` with `persisted`). */
    restored?: boolean;
    traverse?: Traverse;
  }
  | MessageBase & { type: "spa"; traverse?: Traverse }
  /** The tab came to the front (`visibilitychange` to visible): the person switched to it. */
  | MessageBase & { type: "visible"; title?: string }
  | MessageBase & {
    type: "action";
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
    /** Tap: the click's `detail` (1 a single click, 2 the second click of a double click). */
    detail?: number;
    /** Tap: a `dblclick` (the recorder folds it with the two clicks before it). */
    double?: boolean;
    /**
     * The target is the page itself (`html` or `body`: a click on the background, a key with
     * nothing focused): its selectors are only its `cssPath` and `tag`, never a name or text
     * built from what the page shows inside it.
     */
    root?: boolean;
    /** A committed value: when its first keystroke came (epoch ms), the commit being `t`. */
    startedAt?: number;
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
  // the browser's own pages (a new tab's, settings, DevTools) are never recorded from inside
  if (
    /^(chrome|chrome-untrusted|chrome-search|chrome-extension|devtools|edge):$/.test(
      location.protocol,
    )
  ) return;
  // nor in a frame: the player reaches the top frame only, and a frame's reports (its own
  // document's load, its counts) are not the tab's (a frame's load taken for the tab's would
  // make the link that opened the tab's page look typed in the address bar)
  if (globalThis.self !== globalThis.top) return;
  w.__cairnRecorder = true;
  const now = () => Math.round(performance.timeOrigin + performance.now());
  const send = (msg: Record<string, unknown>) => {
    const fn = w[binding];
    if (typeof fn !== "function") return;
    try {
      (fn as (m: string) => void)(
        JSON.stringify({ gen, url: location.href, doc, t: now(), ...msg }),
      );
    } catch {
      // the recorder went away
    }
  };
  let gen = 0;
  const doc = Math.random().toString(36).slice(2, 12);
  // The person's input events (presses, releases, clicks, keys, wheels), counted before any other
  // listener sees them: a press reports the count with its own, so a snapshot taken while the
  // count stays there was taken after the press's task (its pointerdown, mousedown and keydown
  // listeners) and before any later input had an effect
  let inputs = 0;
  for (
    const type of [
      "pointerdown",
      "keydown",
      "pointerup",
      "mouseup",
      "click",
      "dblclick",
      "auxclick",
      "contextmenu",
      "keyup",
      "wheel",
      "touchend",
    ]
  ) {
    addEventListener(type, (e) => {
      if (e.isTrusted) inputs++;
    }, { capture: true, passive: true });
  }
  Object.defineProperty(w, "__cairnGen", { get: () => gen });
  Object.defineProperty(w, "__cairnDoc", { get: () => doc });
  Object.defineProperty(w, "__cairnInputs", { get: () => inputs });
  // changes made while an input event is handled (its listeners run with `window.event` set, and
  // mutation records are delivered right after each listener)
  let effects = 0;
  const INPUT_EVENT =
    /^(pointer|mouse|key|touch|drag|composition|focus|blur|click|dblclick|auxclick|contextmenu|input|beforeinput|change|submit|reset|wheel|scroll|select)/;
  const byInput = () => {
    const ev = w.event;
    return ev instanceof Event && ev.isTrusted && INPUT_EVENT.test(ev.type);
  };
  Object.defineProperty(w, "__cairnEffects", { get: () => effects });
  let quietTimer: ReturnType<typeof setTimeout> | undefined;
  const scheduleQuiet = () => {
    clearTimeout(quietTimer);
    quietTimer = setTimeout(() => send({ type: "quiet" }), 120);
  };
  new MutationObserver(() => {
    gen++;
    if (byInput()) effects++;
    scheduleQuiet();
  }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  // a typed value is no DOM mutation, but it changes what the next snapshot must show; the count
  // before a control's first input since its last report is the count its action is taken at
  const inputBase = new WeakMap<EventTarget, number>();
  /** When a field's first keystroke since its last commit came (epoch ms). */
  const inputStart = new WeakMap<EventTarget, number>();
  addEventListener("input", (e) => {
    const t = e.composedPath()[0];
    if (t && !inputBase.has(t)) inputBase.set(t, gen);
    if (t && !inputStart.has(t)) inputStart.set(t, now());
    gen++;
    effects++;
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
    if (el instanceof HTMLElement && el.isContentEditable) return "textbox";
    return implicitRole[el.tagName.toLowerCase()] ?? "";
  };
  const clean = (s: string | null | undefined) => (s ?? "").replace(/\s+/g, " ").trim();
  const isEditable = (el: Element) => el instanceof HTMLElement && el.isContentEditable;
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
    // what a person typed is no name
    if (isEditable(el)) return clean(el.getAttribute("title") ?? el.getAttribute("placeholder"));
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
  /** The page itself: what a click on the background or a key with nothing focused hits. */
  const isRoot = (el: Element) =>
    el === document.documentElement || el === document.body || el === document.scrollingElement;
  const selectorsOf = (el: Element): Record<string, string> => {
    const s: Record<string, string> = {};
    // the page's text is no name of the page: only where it is (a replay may not heal it onto
    // the element that shows that text)
    if (isRoot(el)) return { cssPath: cssPath(el), tag: el.tagName.toLowerCase() };
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
    if (text && text.length <= 80 && !(el instanceof HTMLSelectElement) && !isEditable(el)) {
      s.text = text;
    }
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
  /** A text field, or the host of contenteditable content (the element inside it that edits). */
  const fieldOf = (el: Element): Element | undefined => {
    if (isText(el)) return el;
    if (!isEditable(el)) return undefined;
    let host: HTMLElement = el as HTMLElement;
    for (let i = 0; i < 64 && host.parentElement?.isContentEditable; i++) {
      host = host.parentElement;
    }
    return host;
  };
  /** What a field holds: an input's value, contenteditable content's text. */
  const contentOf = (el: Element): string =>
    isText(el) ? el.value : ((el as HTMLElement).innerText ?? el.textContent ?? "").replace(
      /\n$/,
      "",
    );
  const committed = new WeakMap<Element, string>();
  /** A count and, for a press, the input count with it: what an action is taken at. */
  interface Base {
    gen: number;
    inputs?: number;
    effects?: number;
  }
  /** The press being dispatched (a blur it causes commits at the press's count). */
  let pressBase: Base | undefined;
  const commit = (target: Element) => {
    const el = fieldOf(target);
    if (!el) return;
    const v = contentOf(el);
    const before = committed.get(el) ?? (isText(el) ? el.defaultValue : undefined);
    if (before === v) return; // untouched or already recorded
    committed.set(el, v);
    inputBase.delete(el);
    const startedAt = inputStart.get(el);
    inputStart.delete(el);
    send({
      type: "action",
      kind: "inputText",
      ...centre(el),
      text: valueOf(el, v),
      selectors: selectorsOf(el),
      ...(startedAt !== undefined ? { startedAt } : {}),
      ...pressBase,
    });
  };
  addEventListener("focusin", (e) => {
    const t = targetOf(e);
    const el = t ? fieldOf(t) : undefined;
    if (el && !committed.has(el)) committed.set(el, contentOf(el));
  }, true);

  /** The count at the last press (pointerdown or key) and when it came. */
  let lastPress = { gen: 0, inputs: 0, effects: 0, at: -Infinity };
  let pointerBase: Base = { gen: 0 };
  let lastEnter = -Infinity;
  const press = () => {
    flushScroll();
    pressBase = { gen, inputs, effects };
    lastPress = { gen, inputs, effects, at: performance.now() };
    send({ type: "pre", inputs, effects });
    setTimeout(() => {
      pressBase = undefined;
    }, 0);
  };
  /** The count a change or keyboard click is taken at: its press's, when it had one just now. */
  const baseOfPress = (fallback: number): Base =>
    performance.now() - lastPress.at < 1000
      ? { gen: lastPress.gen, inputs: lastPress.inputs, effects: lastPress.effects }
      : { gen: fallback };
  addEventListener("pointerdown", () => {
    press();
    pointerBase = { gen, inputs, effects };
  }, true);
  /** The element a click acts on, or null for a click recorded otherwise (a change). */
  const clickTarget = (el: Element): Element | null => {
    const control = el instanceof HTMLLabelElement ? el.control : el.closest("label")?.control;
    const input = el instanceof HTMLInputElement ? el : control;
    // checkboxes, radios and selects are recorded from their change event
    if (
      input instanceof HTMLInputElement && (input.type === "checkbox" || input.type === "radio")
    ) {
      return null;
    }
    if (el.closest("select")) return null;
    return el.closest("a,button,[role=button],[role=link],input,label,[onclick]") ?? el;
  };
  addEventListener("click", (e) => {
    const el = targetOf(e);
    if (!el || !(e as MouseEvent).isTrusted) return;
    const actionable = clickTarget(el);
    if (!actionable) return;
    const me = e as MouseEvent;
    // a click the Enter key caused (implicit submission, activating a button) is the key press
    if (me.detail === 0 && performance.now() - lastEnter < 500) return;
    const keyboard = me.detail === 0 && me.clientX === 0 && me.clientY === 0;
    const at = keyboard
      ? centre(actionable)
      : { x: Math.round(me.clientX), y: Math.round(me.clientY) };
    send({
      type: "action",
      kind: "tap",
      ...at,
      selectors: selectorsOf(actionable),
      ...(isRoot(actionable) ? { root: true } : {}),
      detail: me.detail,
      ...(me.detail === 0 ? baseOfPress(gen) : pointerBase),
    });
  }, true);
  addEventListener("dblclick", (e) => {
    const el = targetOf(e);
    if (!el || !(e as MouseEvent).isTrusted) return;
    const actionable = clickTarget(el);
    if (!actionable) return;
    const me = e as MouseEvent;
    send({
      type: "action",
      kind: "tap",
      x: Math.round(me.clientX),
      y: Math.round(me.clientY),
      selectors: selectorsOf(actionable),
      ...(isRoot(actionable) ? { root: true } : {}),
      double: true,
      ...pointerBase,
    });
  }, true);
  addEventListener("keydown", (e) => {
    const k = (e as KeyboardEvent).key;
    const el = targetOf(e);
    // Space activates a button or a checkbox: its effects come after this count
    if (k === " " && !(el && fieldOf(el))) press();
    if (k !== "Enter" && k !== "Tab" && k !== "Escape") return;
    if (k === "Enter") lastEnter = performance.now();
    press();
    if (el) commit(el); // the value typed so far comes before the key that follows it
    // nothing focused (the key goes to the body): a key of the page, with no target of its own
    const page = !el || isRoot(el);
    send({
      type: "action",
      kind: "keyPress",
      ...(page ? { x: 0, y: 0, root: true } : centre(el)),
      key: k,
      selectors: page ? {} : selectorsOf(el),
      ...pressBase,
    });
  }, true);
  addEventListener("change", (e) => {
    const el = targetOf(e);
    if (!el) return;
    const base = inputBase.get(el) ?? gen;
    inputBase.delete(el);
    if (el instanceof HTMLSelectElement) {
      const option = el.selectedOptions[0];
      send({
        type: "action",
        kind: "select",
        ...centre(el),
        value: valueOf(el, option ? clean(option.textContent) || option.value : el.value),
        selectors: selectorsOf(el),
        gen: base,
      });
    } else if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) {
      send({
        type: "action",
        kind: "check",
        ...centre(el),
        checked: el.checked,
        selectors: selectorsOf(el),
        ...baseOfPress(base),
      });
    } else commit(el);
  }, true);
  addEventListener("focusout", (e) => {
    const el = targetOf(e);
    if (el) commit(el);
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
    effects++;
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

  // ---- navigations ----
  // A traversal the page's own script asks for (an in-app back button) is the click that caused
  // it, not a Back of the person's: said to the recorder, and not reported as a traversal here.
  let scriptedAt = -Infinity;
  const scripted = () => {
    scriptedAt = performance.now();
    send({ type: "scripted" });
  };
  for (const method of ["back", "forward", "go"] as const) {
    const original = history[method].bind(history) as (...a: unknown[]) => void;
    (history as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      scripted();
      original(...args);
    };
  }
  interface NavEntry {
    index: number;
  }
  interface NavApi extends EventTarget {
    currentEntry: NavEntry | null;
    activation?: { from: NavEntry | null; entry: NavEntry; navigationType: string } | null;
    back?: (...a: unknown[]) => unknown;
    forward?: (...a: unknown[]) => unknown;
    traverseTo?: (...a: unknown[]) => unknown;
  }
  const nav = (globalThis as unknown as { navigation?: NavApi }).navigation;
  const direction = (from: NavEntry | null | undefined, to: NavEntry | null | undefined) =>
    !from || !to || from.index < 0 || to.index < 0
      ? "unknown"
      : to.index < from.index
      ? "back"
      : to.index > from.index
      ? "forward"
      : "unknown";
  if (nav && "currentEntry" in nav) {
    for (const method of ["back", "forward", "traverseTo"] as const) {
      const original = nav[method];
      if (typeof original !== "function") continue;
      nav[method] = (...args: unknown[]) => {
        scripted();
        return original.apply(nav, args);
      };
    }
    // every same-document navigation: pushState, replaceState, a fragment, Back and Forward
    nav.addEventListener("currententrychange", (e) => {
      const ev = e as Event & { navigationType?: string; from?: NavEntry };
      const traverse = ev.navigationType === "traverse" && performance.now() - scriptedAt > 1000;
      send({
        type: "spa",
        ...(traverse ? { traverse: direction(ev.from, nav.currentEntry) } : {}),
      });
    });
  } else {
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
  }
  const entry = performance.getEntriesByType("navigation")[0] as
    | PerformanceNavigationTiming
    | undefined;
  /** The direction of the traversal that showed this document, when it was one. */
  const activation = () => {
    const a = nav?.activation;
    return a && a.navigationType === "traverse" ? direction(a.from, a.entry) : "unknown";
  };
  const onReady = () => {
    const type = entry?.type ?? "navigate";
    send({
      type: "load",
      navigation: type,
      ...(type === "back_forward" ? { traverse: activation() } : {}),
    });
    scheduleQuiet();
  };
  // the person brought this tab to the front (a tab switch)
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") send({ type: "visible", title: document.title });
  });
  // a document shown again from the back/forward cache runs no script: only `pageshow` says so
  addEventListener("pageshow", (e) => {
    if (!(e as PageTransitionEvent).persisted) return;
    send({ type: "load", navigation: "back_forward", restored: true, traverse: activation() });
    scheduleQuiet();
  });
  if (document.readyState === "loading") {
    addEventListener("DOMContentLoaded", onReady, { once: true });
  } else onReady();
}

/**
 * The current values of the page's sensitive fields (passwords, `data-sensitive`,
 * `autocomplete` cc-* and passwords, and the text of contenteditable content by the same
 * rules), to scrub from a snapshot before it is stored.
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
    // contenteditable content, by the same rules
    root.querySelectorAll("[contenteditable]").forEach((el) => {
      const ac = (el.getAttribute("autocomplete") ?? "").toLowerCase();
      if (
        !(el as HTMLElement).isContentEditable ||
        !(el.closest("[data-sensitive]") || ac.startsWith("cc-") || ac.includes("password"))
      ) return;
      const text = ((el as HTMLElement).innerText ?? el.textContent ?? "").replace(/\n$/, "");
      if (text.trim()) out.push(text);
    });
    root.querySelectorAll("*").forEach((el) => {
      if (el.shadowRoot) visit(el.shadowRoot);
    });
  };
  visit(document);
  return out;
}
