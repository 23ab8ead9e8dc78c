/**
 * The coordinate fallback of the cascade: scale a recorded point to the
 * replay viewport, warn when viewports differ by more than 20 %, and check that what lies
 * under the point is the kind of element that was recorded before acting on it. The same
 * identity evidence guards the other positional fallbacks: an indexed selector
 * (`{testId: field, index: 1}`) or a class + index matches by position, so when the page changed
 * (a field inserted above, a label renamed) it can land on another element, and the names the
 * recording gave the element (accessible name, aria-label, content description, text) say so.
 *
 * @module
 */
import { type Bounds, center, type Point, type Screen, type UiNode, walk } from "../screens/mod.ts";
import type { Target } from "./actions.ts";

/** A viewport: CSS size and device pixel ratio. */
export interface ViewportInfo {
  width: number;
  height: number;
  devicePixelRatio?: number;
}

/** Viewports differing by more than this fraction (either side) get a warning. */
export const VIEWPORT_MISMATCH_RATIO = 0.2;

/**
 * Scales a recorded point to the replay viewport: device pixels are first divided by the
 * recording's pixel ratio (to CSS pixels), then each axis is scaled by replay / recorded size.
 *
 * @param point the recorded point
 * @param recorded the recording's viewport (CSS pixels) and pixel ratio
 * @param current the replay viewport
 * @param options `space: "device"` when the point is in device pixels
 * @returns the point in the replay viewport's CSS pixels, rounded
 * @example
 * ```ts
 * const p = scalePoint({ x: 400, y: 300 }, { width: 800, height: 600 }, { width: 400, height: 300 });
 * if (p.x !== 200 || p.y !== 150) throw new Error();
 * ```
 */
export function scalePoint(
  point: Point,
  recorded: ViewportInfo | undefined,
  current: ViewportInfo,
  options: { space?: "css" | "device" } = {},
): Point {
  const dpr = options.space === "device" ? (recorded?.devicePixelRatio ?? 1) : 1;
  const sx = recorded ? current.width / recorded.width : 1;
  const sy = recorded ? current.height / recorded.height : 1;
  return { x: Math.round((point.x / dpr) * sx), y: Math.round((point.y / dpr) * sy) };
}

/**
 * The viewport mismatch warning, or undefined when both sides are within 20 %.
 *
 * @param recorded the recording's viewport
 * @param current the replay viewport
 * @returns `viewport_mismatch: Recording was 1920x1080, current is 1366x768. …` or undefined
 */
export function viewportWarning(
  recorded: ViewportInfo | undefined,
  current: ViewportInfo,
): string | undefined {
  if (!recorded) return undefined;
  const dw = Math.abs(current.width - recorded.width) / recorded.width;
  const dh = Math.abs(current.height - recorded.height) / recorded.height;
  if (dw <= VIEWPORT_MISMATCH_RATIO && dh <= VIEWPORT_MISMATCH_RATIO) return undefined;
  return `viewport_mismatch: Recording was ${recorded.width}x${recorded.height}, current is ${current.width}x${current.height}. Coordinate fallback may be inaccurate.`;
}

/**
 * The deepest visible node whose bounds contain a point, with its ancestors (nearest first).
 *
 * @param screen the current screen
 * @param point a point in the screen's space
 * @returns the node and its ancestors, or undefined when nothing contains the point
 */
export function nodeAt(
  screen: Screen,
  point: Point,
): { node: UiNode; ancestors: UiNode[] } | undefined {
  let best: { node: UiNode; depth: number; path: UiNode[] } | undefined;
  const path: UiNode[] = [];
  for (const [node, depth] of walk(screen.root)) {
    path.length = depth;
    path.push(node);
    const b = node.bounds;
    if (!node.visible || b.w <= 0 || b.h <= 0) continue;
    if (point.x < b.x || point.y < b.y || point.x > b.x + b.w || point.y > b.y + b.h) continue;
    if (!best || depth >= best.depth) best = { node, depth, path: [...path] };
  }
  if (!best) return undefined;
  return { node: best.node, ancestors: best.path.slice(0, -1).reverse() };
}

/** A CSS path naming the page itself (the Chrome Recorder's click on the body). */
const PAGE_CSS = /^\s*(?:html|body|html\s*>\s*body)\s*$/i;

/**
 * Whether a recorded CSS path names the page itself (`body`, `html`, `html > body`): a click on
 * the page's background, which the player acts on at the recorded point.
 *
 * @param cssPath the target's CSS path
 * @returns true for the page
 * @example
 * ```ts
 * if (!isPageCssPath("body") || isPageCssPath("body > div")) throw new Error();
 * ```
 */
export function isPageCssPath(cssPath: string | undefined): boolean {
  return cssPath !== undefined && PAGE_CSS.test(cssPath);
}

/** The page's own nodes: Chrome's root, the document, the body. */
function isPageNode(n: UiNode): boolean {
  const role = n.role ?? n.className;
  return role === "RootWebArea" || role === "WebArea" || role === "document" ||
    isPageCssPath(n.attrs?.cssPath);
}

const ANCESTORS_CHECKED = 3; // a label inside a button: the button is at most a few levels up

function norm(s: string | undefined): string {
  return (s ?? "").replace(/\s+/g, " ").trim().toLowerCase();
}

/**
 * Whether the element under a point is plausibly the recorded one — the guard of the weak
 * levels (CSS path, XPath, coordinates), which match by position, not identity:
 * - when the recording knows the role, the node at the point (or a near ancestor) must have it;
 *   without a role, it must at least be interactive;
 * - when the recording knows a name ({@linkcode recordedNames}: accessible name, aria-label,
 *   Android content description, text), the node must show one of them
 *   ({@linkcode shownNames}); a node with other names, or with none, is refused: position
 *   alone never overrules identity (a renamed or unnamed element fails rather than risk a wrong
 *   one).
 *
 * A selector's own unique match (`matched`: a CSS path or XPath that found exactly this element)
 * is no guess: when the recording knows neither a role nor a name (a hand-written
 * `{ cssPath: "#order" }`) there is nothing to contradict, and any element is taken, as
 * Playwright's `locator('#order')` takes it. A read or an assertion (`read`) takes any role: it
 * acts on nothing, and a paragraph is what it reads.
 *
 * @param screen the current screen
 * @param point the center of the candidate element
 * @param target what the recording knows of the element
 * @param options `matched`: the element is a selector's one match (not a bare point); `read`: the
 *   action only reads or asserts
 * @returns `{ ok: true, node }` (the node taken for the recorded one) or `{ ok: false, reason }`
 */
export function checkPointTarget(
  screen: Screen,
  point: Point,
  target: Target,
  options: { matched?: boolean; read?: boolean } = {},
): { ok: true; role?: string; node: UiNode } | { ok: false; reason: string } {
  const hit = nodeAt(screen, point);
  if (!hit) return { ok: false, reason: `no element at (${point.x}, ${point.y})` };
  const chain = [hit.node, ...hit.ancestors.slice(0, ANCESTORS_CHECKED)];
  const roleOf = (n: UiNode) => n.role ?? n.className;
  if (!target.role && isPageCssPath(target.cssPath)) {
    // the page itself (a click on its background): no control may be there now
    const control = chain.find((n) =>
      !isPageNode(n) && (n.clickable || n.checkable || n.hint !== undefined)
    );
    if (control) {
      return {
        ok: false,
        reason: `the element at (${point.x}, ${point.y}) is a ${
          roleOf(control)
        }, the recording clicked the page's background`,
      };
    }
    return { ok: true, role: roleOf(hit.node), node: hit.node };
  }
  if (options.matched && !target.role && recordedNames(target).length === 0) {
    return { ok: true, role: roleOf(hit.node), node: hit.node };
  }
  let node: UiNode | undefined;
  if (options.read) {
    node = (target.role ? chain.find((n) => roleOf(n) === target.role) : undefined) ?? hit.node;
  } else if (target.role) {
    node = chain.find((n) => roleOf(n) === target.role);
    if (!node) {
      return {
        ok: false,
        reason: `the element at (${point.x}, ${point.y}) is a ${
          roleOf(hit.node)
        }, the recording targeted a ${target.role}`,
      };
    }
  } else {
    node = chain.find((n) => n.clickable || n.checkable || n.hint !== undefined);
    if (!node) {
      return {
        ok: false,
        reason: `the element at (${point.x}, ${point.y}) (${roleOf(hit.node)}) is not interactive`,
      };
    }
  }
  // never the page itself (the recording did not target it: see above)
  const refused = pageRefusal(node, point);
  if (refused) return { ok: false, reason: refused };
  const recorded = recordedNames(target);
  // a container without a name of its own (an Android tab, a link around a label) shows its
  // children's text; one that shows none at all is unnamed. Android names an icon by its
  // content description, the web by its aria-label: either is the element's name.
  const shown = shownNames(node, screen);
  if (recorded.length > 0 && !shown.some((s) => recorded.some((r) => norm(r) === norm(s)))) {
    const found = shown.length > 0 ? `"${shown[0]}"` : "unnamed";
    return {
      ok: false,
      reason: `the element at (${point.x}, ${point.y}) is ${found}, the recording targeted "${
        recorded[0]
      }"`,
    };
  }
  return { ok: true, role: roleOf(node), node };
}

/**
 * Why `node` may not be taken for the recorded element: it is the page itself (the recording did
 * not target the page: a point between elements would act on or read the whole page — a page
 * with a delegated click handler is "clickable" everywhere). Undefined when it may be taken.
 */
function pageRefusal(node: UiNode, point: Point): string | undefined {
  if (!isPageNode(node)) return undefined;
  return `the point (${point.x}, ${point.y}) is on the page itself, not on an element`;
}

/**
 * The visible text of a node: its own text, else its descendants' texts joined by a space
 * (a button's label lives in its children), else its accessible name.
 *
 * @param node a node of a screen
 * @returns the text, `""` when the node shows none
 * @example
 * ```ts
 * import { makeNode } from "../screens/ui_node.ts";
 * const label = makeNode({ className: "StaticText", text: "12.50" });
 * const button = makeNode({ className: "button", name: "Total", children: [label] });
 * if (nodeText(button) !== "12.50") throw new Error();
 * ```
 */
export function nodeText(node: UiNode): string {
  if (node.text) return node.text;
  const parts: string[] = [];
  const collect = (n: UiNode) => {
    for (const child of n.children) {
      if (!child.visible) continue;
      if (child.text) parts.push(child.text); // its own parts (inline text boxes) repeat it
      else collect(child);
    }
  };
  collect(node);
  const text = parts.join(" ").replace(/\s+/g, " ").trim();
  return text || (node.name ?? "");
}

/**
 * The names the recording gave an element: its accessible name, aria-label, content description
 * and (unless left out) text, of the target and of each of its ordered selectors, without
 * repeats. A `within` ancestor's names are not the element's.
 *
 * @param target what the recording knows of the element
 * @param options `text: false` leaves the text out (what a read or an assertion reads changes)
 * @returns the names, first recorded first
 * @example
 * ```ts
 * const names = recordedNames({ ariaLabel: "Email", alternatives: [{ ariaLabel: "Email" }, { text: "Mail" }] });
 * if (names.join("|") !== "Email|Mail") throw new Error(names.join("|"));
 * ```
 */
export function recordedNames(target: Target, options: { text?: boolean } = {}): string[] {
  const out: string[] = [];
  for (const t of [target, ...(target.alternatives ?? [])]) {
    const names = [t.name, t.ariaLabel, t.contentDescription, options.text === false ? "" : t.text];
    for (const n of names) if (n?.trim() && !out.includes(n)) out.push(n);
  }
  return out;
}

/**
 * The names a node shows: its accessible name, content description (Android content-desc, web
 * aria-label), text, hint (placeholder) and the text of its children.
 *
 * @param node a node of a screen
 * @returns the non-empty names, without repeats
 */
export function shownNames(node: UiNode, screen?: Screen): string[] {
  const out: string[] = [];
  const label = screen ? fieldLabel(screen.root, node) : undefined;
  for (
    const n of [node.name, node.contentDescription, node.text, node.hint, nodeText(node), label]
  ) {
    if (n?.trim() && !out.includes(n)) out.push(n);
  }
  return out;
}

/** An Android text field: what a user types into. */
const ANDROID_FIELD = /(?:^|\.)(?:EditText|AutoCompleteTextView|TextInputEditText)$/;
/** A text label: a TextView that is not itself a control or a field. */
const ANDROID_LABEL = /(?:^|\.)(?:TextView|AppCompatTextView|MaterialTextView)$/;

/**
 * The label of an Android text field in a form of labelled fields, as TalkBack names a field
 * its label is `labelFor`: the text of the TextView just before it among its siblings, above it
 * (within the field's height) or on its left (sharing its row), when every field among those
 * siblings (two or more) has such a label. Undefined for anything else: a lone field after a
 * screen's title, fields named by their hints, a field after a button.
 *
 * @param root the screen's root
 * @param node a node of that screen
 * @returns the label's text, or undefined
 * @example
 * ```ts
 * import { makeNode } from "../screens/ui_node.ts";
 * const label = makeNode({ className: "android.widget.TextView", text: "Full name", bounds: { x: 0, y: 0, w: 200, h: 40 } });
 * const field = makeNode({ className: "android.widget.EditText", bounds: { x: 0, y: 50, w: 400, h: 100 } });
 * const label2 = makeNode({ className: "android.widget.TextView", text: "Email", bounds: { x: 0, y: 160, w: 200, h: 40 } });
 * const field2 = makeNode({ className: "android.widget.EditText", bounds: { x: 0, y: 210, w: 400, h: 100 } });
 * const root = makeNode({ className: "android.widget.FrameLayout", children: [label, field, label2, field2] });
 * if (fieldLabel(root, field) !== "Full name") throw new Error();
 * ```
 */
export function fieldLabel(root: UiNode, node: UiNode): string | undefined {
  if (!ANDROID_FIELD.test(node.className)) return undefined;
  for (const [p] of walk(root)) {
    const k = p.children.indexOf(node);
    if (k < 0) continue;
    // a form of labelled fields: two or more, each after its label (a lone field after a
    // screen's title, or fields named by their hints, have no label this way)
    const fields = p.children.filter((c) => c.visible && ANDROID_FIELD.test(c.className));
    if (fields.length < 2) return undefined;
    if (fields.some((f) => labelBefore(p, p.children.indexOf(f)) === undefined)) return undefined;
    return labelBefore(p, k);
  }
  return undefined;
}

/** The label just before the field at `k` among `parent`'s children (above it or on its left). */
function labelBefore(parent: UiNode, k: number): string | undefined {
  const before = parent.children[k - 1];
  const field = parent.children[k]!;
  if (!before || !before.visible || before.clickable || !ANDROID_LABEL.test(before.className)) {
    return undefined;
  }
  const text = before.text?.trim();
  if (!text) return undefined;
  const [a, b] = [before.bounds, field.bounds];
  const above = a.y + a.h <= b.y + 4 && b.y - (a.y + a.h) <= b.h;
  const left = a.x + a.w <= b.x + 4 && a.y < b.y + b.h && b.y < a.y + a.h;
  return above || left ? text : undefined;
}

/**
 * Whether a name is still shown on the screen (by a visible node's text, content description,
 * hint or accessible name, whole, spaces and case aside): a recorded name that is nowhere on the
 * screen was renamed, one that is still shown names another element than a node showing
 * something else.
 *
 * @param screen the current screen
 * @param names the recorded names
 * @returns true when one of them is shown
 */
export function nameStillShown(screen: Screen, names: readonly string[]): boolean {
  const wanted = names.map(norm).filter((n) => n !== "");
  if (wanted.length === 0) return false;
  for (const [node] of walk(screen.root)) {
    if (!node.visible) continue;
    for (const n of [node.name, node.contentDescription, node.text, node.hint]) {
      if (n !== undefined && wanted.includes(norm(n))) return true;
    }
  }
  return false;
}

/** Letters and digits only, lower case: `E-mail address` → `emailaddress`. */
function squash(s: string): string {
  return s.normalize("NFKD").replace(/[^\p{L}\p{N}]/gu, "").toLowerCase();
}

/**
 * Whether two names may name one element: equal, or one holding the other, on letters and digits
 * only, ignoring case (`Email` and `E-mail address`, `input-email` and `Email`). Names that share
 * neither (`Email` and `Name`) contradict each other.
 */
function related(a: string, b: string): boolean {
  const x = squash(a);
  const y = squash(b);
  if (x === "" || y === "") return true; // punctuation only: no evidence either way
  return x.includes(y) || y.includes(x);
}

/** Bounds that are the same box (within a pixel of rounding). */
function sameBox(a: Bounds, b: Bounds): boolean {
  return Math.abs(a.x - b.x) <= 1 && Math.abs(a.y - b.y) <= 1 && Math.abs(a.w - b.w) <= 1 &&
    Math.abs(a.h - b.h) <= 1;
}

/**
 * Checks the element a positional fallback found against the names the recording gave it. The
 * element is the screen's visible nodes with its box (a button and the label filling it), else
 * the node at its center. It is refused only when both sides have a name and none of the
 * element's is related to any recorded one (see `related`): an element without a name, or a
 * recording without one, is no evidence against it.
 *
 * @param screen the current screen
 * @param bounds the element's bounds, in the screen's space
 * @param names the recorded names ({@linkcode recordedNames})
 * @returns true, or why it is refused: `the element is "Name", the recording targeted "Email"`
 * @example
 * ```ts
 * import { makeNode } from "../screens/ui_node.ts";
 * const box = { x: 0, y: 0, w: 100, h: 20 };
 * const field = makeNode({ className: "textbox", name: "Name", bounds: box });
 * const root = makeNode({ className: "RootWebArea", bounds: { x: 0, y: 0, w: 200, h: 200 }, children: [field] });
 * const screen = { platform: "web" as const, format: "chrome" as const, root, width: 200, height: 200 };
 * if (checkRecordedName(screen, box, ["E-mail"]) === true) throw new Error("Name is not E-mail");
 * if (checkRecordedName(screen, box, ["name"]) !== true) throw new Error();
 * ```
 */
export function checkRecordedName(
  screen: Screen,
  bounds: Bounds,
  names: readonly string[],
): true | string {
  if (names.length === 0) return true;
  const nodes: UiNode[] = [];
  for (const [node] of walk(screen.root)) {
    if (node.visible && sameBox(node.bounds, bounds)) nodes.push(node);
  }
  if (nodes.length === 0) {
    const hit = nodeAt(screen, center(bounds));
    if (hit) nodes.push(hit.node);
  }
  const shown = nodes.flatMap((n) => shownNames(n, screen));
  if (shown.length === 0) return true;
  if (shown.some((s) => names.some((n) => related(s, n)))) return true;
  return `the element is "${shown[0]}", the recording targeted "${names[0]}"`;
}

/** Roles that say nothing of an element's kind (a `<div>`, a `<span>`). */
const KINDLESS = new Set(["generic", "none", "presentation", "StaticText", "InlineTextBox", ""]);

/**
 * The roles the recording gave an element: the target's and each of its ordered selectors'
 * (a chain's role + name entry), without repeats; roles that name no kind (`generic`) left out.
 *
 * @param target what the recording knows of the element
 * @returns the roles, first recorded first
 * @example
 * ```ts
 * if (recordedRoles({ testId: "go", alternatives: [{ testId: "go" }, { role: "button", name: "Go" }] }).join() !== "button") throw new Error();
 * ```
 */
export function recordedRoles(target: Target): string[] {
  const out: string[] = [];
  for (const t of [target, ...(target.alternatives ?? [])]) {
    if (t.role && !KINDLESS.has(t.role) && !out.includes(t.role)) out.push(t.role);
  }
  return out;
}

/**
 * Checks the element a fallback level found (a healed one) against the fingerprint the chain
 * gives of it, so a fallback cannot land on an element of another kind: when the chain (or the
 * recorded target) knows a role, the element, one of the nodes filling its box, or one of its
 * nearest ancestors must have it (a label's text inside its button). A positional fallback (an
 * index, a class + index: `names`) must also not contradict the recorded names
 * ({@linkcode checkRecordedName}); a fallback by identity (an id, a test id, a label) may show
 * new copy — that is what it heals. Position is no part of the check: a changed layout moves
 * the right element too.
 *
 * @param screen the current screen
 * @param bounds the element's bounds, in the screen's space
 * @param target what the recording knows of the element
 * @param options `names`: check the names too; `read`: the action reads or asserts (its text
 *   may have changed: no text names)
 * @returns true, or why it is refused: `the element is a link, the selectors name a button`
 */
export function checkFingerprint(
  screen: Screen,
  bounds: Bounds,
  target: Target,
  options: { names?: boolean; read?: boolean } = {},
): true | string {
  const roles = recordedRoles(target);
  if (roles.length > 0) {
    const boxed: UiNode[] = [];
    for (const [node] of walk(screen.root)) {
      if (node.visible && sameBox(node.bounds, bounds)) boxed.push(node);
    }
    const hit = nodeAt(screen, center(bounds));
    const near = hit ? [hit.node, ...hit.ancestors.slice(0, ANCESTORS_CHECKED)] : [];
    const kinds = [...boxed, ...near].map((n) => n.role ?? n.className ?? "");
    if (kinds.length > 0 && !kinds.some((k) => roles.includes(k))) {
      const seen = kinds.find((k) => !KINDLESS.has(k)) ?? kinds[0] ?? "unknown";
      return `the element is a ${seen}, the selectors name a ${roles[0]}`;
    }
  }
  if (!options.names) return true;
  return checkRecordedName(screen, bounds, recordedNames(target, { text: !options.read }));
}

/**
 * An element an earlier action of the run found by a selector, with the point the recording
 * acted on for it (scaled to the replay screen): two or more of them, still on the screen,
 * register the recorded layout on the current one ({@linkcode layoutOffset}).
 */
export interface Landmark {
  /** The recorded point, scaled to the replay screen. */
  recorded: Point;
  /** Where the action found the element. */
  bounds: Bounds;
}

/** Landmarks larger than this share of the screen (a list, the root) register nothing. */
const LANDMARK_MAX_AREA = 0.5;

function holds(b: Bounds, p: Point): boolean {
  return p.x >= b.x && p.y >= b.y && p.x < b.x + b.w && p.y < b.y + b.h;
}

/**
 * How far the layout moved since the recording, read from landmarks: the elements earlier
 * actions of this run found by their selectors that are still on the screen (a visible node
 * with the same box), of which there must be at least two distinct ones. An offset is returned
 * only when it puts EVERY such landmark's recorded point inside its element: a banner that
 * pushed the whole screen down gives one offset (`{ x: 0, y: 220 }`, or zero when nothing
 * moved); a layout that moved its parts differently, or a screen holding too few of them (an
 * unexpected screen), gives none.
 *
 * @param screen the current screen
 * @param landmarks the run's landmarks, in any order
 * @returns the offset to add to a recorded (scaled) point, or undefined
 * @example
 * ```ts
 * import { makeNode } from "../screens/ui_node.ts";
 * const a = { x: 0, y: 320, w: 100, h: 40 };
 * const b = { x: 0, y: 420, w: 100, h: 40 };
 * const root = makeNode({ className: "FrameLayout", bounds: { x: 0, y: 0, w: 400, h: 800 }, children: [makeNode({ className: "TextView", bounds: a }), makeNode({ className: "TextView", bounds: b })] });
 * const screen = { platform: "android" as const, format: "uiautomator2" as const, root, width: 400, height: 800 };
 * const off = layoutOffset(screen, [{ recorded: { x: 50, y: 120 }, bounds: a }, { recorded: { x: 50, y: 220 }, bounds: b }]);
 * if (off?.x !== 0 || off.y !== 220) throw new Error(JSON.stringify(off));
 * ```
 */
export function layoutOffset(screen: Screen, landmarks: readonly Landmark[]): Point | undefined {
  const area = Math.max(1, screen.width * screen.height);
  const boxes: Bounds[] = [];
  for (const [node] of walk(screen.root)) if (node.visible) boxes.push(node.bounds);
  const present: Landmark[] = [];
  for (const l of landmarks) {
    if (l.bounds.w * l.bounds.h > LANDMARK_MAX_AREA * area) continue;
    if (!boxes.some((b) => sameBox(b, l.bounds))) continue;
    if (present.some((p) => sameBox(p.bounds, l.bounds))) continue; // one element, one vote
    present.push(l);
  }
  if (present.length < 2) return undefined;
  for (const l of present) {
    const c = center(l.bounds);
    const off = { x: Math.round(c.x - l.recorded.x), y: Math.round(c.y - l.recorded.y) };
    const fits = (m: Landmark) =>
      holds(m.bounds, { x: m.recorded.x + off.x, y: m.recorded.y + off.y });
    if (present.every(fits)) return off;
  }
  return undefined;
}

/**
 * Whether a positional fallback's element (a class + index) is where the registered layout puts
 * the recorded point: the recorded point moved by {@linkcode layoutOffset} falls inside it. This
 * is the evidence that may overrule a renamed text: the element is of the recorded class, at the
 * recorded place on a screen whose other elements are where the same move puts them.
 *
 * @param screen the current screen
 * @param bounds the element found
 * @param recorded the recorded point, scaled to the replay screen
 * @param landmarks the run's landmarks
 * @returns the offset used when the element is there, else undefined
 */
export function atRegisteredPoint(
  screen: Screen,
  bounds: Bounds,
  recorded: Point,
  landmarks: readonly Landmark[],
): Point | undefined {
  const off = layoutOffset(screen, landmarks);
  if (!off) return undefined;
  return holds(bounds, { x: recorded.x + off.x, y: recorded.y + off.y }) ? off : undefined;
}
