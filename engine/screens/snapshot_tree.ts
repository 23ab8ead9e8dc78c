/**
 * The snapshot walk: which nodes of a screen an agent sees, how they nest once generic layout
 * containers are lifted away, and the ref of each. The renderer (`renderSnapshot`), ref
 * resolution (`resolveRef`) and the set-of-mark screenshot all read this one walk, so a ref
 * shown is a ref that resolves and the marks carry the same refs as the text.
 *
 * Rules, in order, for each node (document order):
 * 1. System chrome is dropped with its subtree: on Android a `com.android.systemui` window
 *    beside an app window; on iOS the status bar — the `StatusBar` element's subtree when the
 *    screen has one; else (Maestro and Trailblaze iOS trees have no element types) small
 *    non-interactive `Other` elements in the top 50 pt —, scroll indicators (extreme aspect
 *    ratio) and chevrons (exact text).
 * 2. A leaf repeating the label of its nearest shown ancestor adds nothing and is dropped (on
 *    the web, a text node that is part of that label). On Android an unlabelled clickable
 *    element is labelled by its content first, as TalkBack reads it ({@linkcode contentName}):
 *    a row `- View "Android Auto" [clickable]: Not allowed` drops its "Android Auto" text.
 * 3. Generic containers (View, FrameLayout, LinearLayout, ConstraintLayout, RelativeLayout,
 *    ViewGroup, XCUIElementTypeOther, web `generic`/`none`, …) without a label, test id or
 *    interaction are suppressed and their children lifted; a leaf of any class without a
 *    label, test id or interaction (a decorative image) is suppressed.
 * 4. A shown node whose only shown child is a text leaf takes that text inline
 *    (`- ViewGroup "loginBtn" [ref=k42]: Sign in`); the text leaf gets no ref of its own.
 * 5. Every other node is an entry with a ref (see `engine/screens/refs.ts`). It is off screen when it has
 *    no area, lies outside the screen or outside a scrolling container that holds it, or is
 *    hidden (`visible=false`, itself or an ancestor).
 *
 * Refs do not depend on render options: depth, subtree, bounds and offscreen only change what
 * is printed. Nor do they hash a content name: it is shown only, so a row's ref does not change
 * when another element on the screen takes one of its labels.
 *
 * @module
 */
import { assignRefs, isTextField } from "./refs.ts";
import { type Screen, type UiNode, walk } from "./ui_node.ts";

/** One shown node of a snapshot. */
export interface SnapshotEntry {
  node: UiNode;
  ref: string;
  /** Depth in the lifted tree (0 = top level). */
  depth: number;
  parent: SnapshotEntry | undefined;
  children: SnapshotEntry[];
  /**
   * Android: the name of an unlabelled clickable element read from its content
   * ({@linkcode contentName}), shown as its label. Refs do not hash it (see `engine/screens/refs.ts`).
   */
  name?: string;
  /** Text of a lone text-leaf child shown inline. */
  inlineText?: string;
  /** Off the screen (no overlap with it, or zero area) or hidden (itself or an ancestor). */
  offscreen: boolean;
  /** Hidden by the platform (`visible=false`, itself or an ancestor). */
  hidden: boolean;
}

/** The walk of one screen: entries in document order and by ref. */
export interface SnapshotTree {
  screen: Screen;
  /** Top-level entries. */
  roots: SnapshotEntry[];
  /** Every entry in document order. */
  entries: SnapshotEntry[];
  byRef: Map<string, SnapshotEntry>;
}

/** Short class names of layout containers that say nothing to a reader. */
export const GENERIC_CLASSES: ReadonlySet<string> = new Set([
  "View",
  "FrameLayout",
  "LinearLayout",
  "ConstraintLayout",
  "RelativeLayout",
  "ViewGroup",
  "CoordinatorLayout",
  "DrawerLayout",
  "ComposeView",
  "Other",
  "Window",
  "generic",
  "none",
  "presentation",
  "RootWebArea",
  "WebArea",
  "hierarchy",
  "AppiumAUT",
  "LabelText",
]);

/** Document-level wrappers never shown, whatever their label or focus. */
const ALWAYS_LIFTED = new Set(["RootWebArea", "WebArea", "hierarchy", "AppiumAUT"]);

/** Class names (short) of text leaves. */
const TEXT_CLASSES = new Set(["TextView", "StaticText", "text"]);

/** Exact labels of decorative iOS disclosure indicators. */
const CHEVRON_LABELS = new Set([
  "chevron",
  "chevron.right",
  "chevron.forward",
  "chevron.up",
  "chevron.down",
  "Chevron",
]);

/**
 * The short display name of a class: the last dotted segment on Android
 * (`android.widget.Button` → `Button`), without the `XCUIElementType` prefix on iOS, the web
 * role as is (`StaticText` → `text`).
 *
 * @param className the node's class name
 * @returns the short name
 * @example
 * ```ts
 * if (shortClassName("android.widget.Button") !== "Button") throw new Error();
 * if (shortClassName("XCUIElementTypeStaticText") !== "StaticText") throw new Error();
 * ```
 */
export function shortClassName(className: string): string {
  if (className.startsWith("XCUIElementType")) return className.slice(15) || className;
  if (className === "StaticText") return "text";
  const dot = className.lastIndexOf(".");
  return dot >= 0 && dot < className.length - 1 ? className.slice(dot + 1) : className;
}

/** Whether a user acts on a node (tap, type, toggle, scroll). */
export function isInteractive(node: UiNode): boolean {
  return node.clickable || node.checkable || node.scrollable || node.focused ||
    INTERACTIVE_SHORT.has(shortClassName(node.className));
}

/**
 * Whether a node's class is one a user acts on by nature (a button, a text field, a toggle), so
 * that `[clickable]` would add nothing to it.
 *
 * @param node the node
 * @returns true for an interactive class
 */
export function isInteractiveClass(node: UiNode): boolean {
  const short = shortClassName(node.className);
  return INTERACTIVE_SHORT.has(short) || isTextField(node) || short.endsWith("Button");
}

const INTERACTIVE_SHORT = new Set([
  "Button",
  "ImageButton",
  "EditText",
  "CheckBox",
  "Switch",
  "ToggleButton",
  "RadioButton",
  "SeekBar",
  "Spinner",
  "TextField",
  "SecureTextField",
  "SearchField",
  "Link",
  "Cell",
  "Key",
  "button",
  "link",
  "textbox",
  "searchbox",
  "checkbox",
  "radio",
  "switch",
  "combobox",
  "slider",
  "tab",
  "menuitem",
  "option",
]);

const cache = new WeakMap<Screen, SnapshotTree>();

/**
 * Builds (once per screen object; later calls return the same tree) the snapshot walk. A screen
 * is treated as immutable once rendered: change a copy, not the screen, to see a change.
 *
 * @param screen the parsed screen
 * @returns the entries, nested and in document order, with their refs
 */
export function snapshotTree(screen: Screen): SnapshotTree {
  const hit = cache.get(screen);
  if (hit) return hit;
  const tree = build(screen);
  cache.set(screen, tree);
  return tree;
}

/** The visible rectangle at a point of the walk (the screen, narrowed by scrolling containers). */
interface Clip {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

interface Pending {
  node: UiNode;
  depth: number;
  name?: string;
  inlineText?: string;
  offscreen: boolean;
  hidden: boolean;
  children: Pending[];
}

function build(screen: Screen): SnapshotTree {
  const { width, height } = screen;
  const ios = screen.platform === "ios";
  const android = screen.platform === "android";
  let labelCounts: LabelCounts | undefined; // counted on the first unlabelled clickable
  const droppedWindows = androidSystemWindows(screen);
  const chromeCache = new Map<UiNode, boolean>();
  const statusBarByPosition = ios && !hasStatusBar(screen.root);
  const isChrome = (n: UiNode): boolean => {
    let v = chromeCache.get(n);
    if (v === undefined) {
      v = ios && iosChrome(n, width, statusBarByPosition, isChrome);
      chromeCache.set(n, v);
    }
    return v;
  };
  const pendingRoots: Pending[] = [];
  const order: Pending[] = [];
  // Depth-first in document order; `shown` is the nearest shown ancestor.
  const visit = (
    node: UiNode,
    shown: Pending | undefined,
    label: string,
    hiddenAbove: boolean,
    clip: Clip,
  ) => {
    if (droppedWindows.has(node) || isChrome(node)) return;
    const hidden = hiddenAbove || !node.visible;
    const leaf = node.children.length === 0;
    let own = visibleLabel(node);
    let name: string | undefined;
    if (android && own === "" && node.clickable && !leaf) {
      labelCounts ??= countLabels(screen.root);
      name = contentName(node, labelCounts);
      if (name !== undefined) own = name;
    }
    if (leaf && own !== "" && own === label && !isInteractive(node)) return; // rule 2
    // Web text inside a named element is part of that name (`link "Hello World"` ← "Hello ").
    if (leaf && node.className === "StaticText" && label !== "" && label.includes(own.trim())) {
      return;
    }
    const short = shortClassName(node.className);
    const plain = own === "" && !isInteractive(node) && node.testId === undefined; // (name: clickable)
    const suppressed = ALWAYS_LIFTED.has(node.className) ||
      (plain && (leaf || GENERIC_CLASSES.has(short)));
    if (suppressed) {
      for (const c of node.children) visit(c, shown, label, hidden, clip);
      return;
    }
    const b = node.bounds;
    const onScreen = b.w > 0 && b.h > 0 && b.x < clip.x2 && b.y < clip.y2 && b.x + b.w > clip.x1 &&
      b.y + b.h > clip.y1;
    // A scrolling container clips what it holds: its children outside it are off screen.
    const inner: Clip = node.scrollable && b.w > 0 && b.h > 0
      ? {
        x1: Math.max(clip.x1, b.x),
        y1: Math.max(clip.y1, b.y),
        x2: Math.min(clip.x2, b.x + b.w),
        y2: Math.min(clip.y2, b.y + b.h),
      }
      : clip;
    const p: Pending = {
      node,
      depth: shown ? shown.depth + 1 : 0,
      offscreen: hidden || !onScreen,
      hidden,
      children: [],
    };
    if (name !== undefined) p.name = name;
    if (shown) shown.children.push(p);
    else pendingRoots.push(p);
    order.push(p);
    for (const c of node.children) visit(c, p, own === "" ? label : own, hidden, inner);
  };
  visit(screen.root, undefined, "", false, { x1: 0, y1: 0, x2: width, y2: height });
  // Rule 4: a lone text-leaf child is shown inline on its parent's line.
  const merged = new Set<Pending>();
  for (const p of order) {
    const only = p.children.length === 1 ? p.children[0]! : undefined;
    if (
      only && only.children.length === 0 && p.node.value === undefined &&
      fieldValue(p.node) === undefined &&
      TEXT_CLASSES.has(shortClassName(only.node.className)) && !isInteractive(only.node) &&
      visibleLabel(only.node) !== ""
    ) {
      p.inlineText = visibleLabel(only.node);
      p.children = [];
      merged.add(only);
    }
  }
  const kept = order.filter((p) => !merged.has(p));
  const refs = assignRefs(kept.map((p) => p.node));
  const entryOf = new Map<Pending, SnapshotEntry>();
  const entries: SnapshotEntry[] = kept.map((p, i) => {
    const e: SnapshotEntry = {
      node: p.node,
      ref: refs[i]!,
      depth: p.depth,
      parent: undefined,
      children: [],
      offscreen: p.offscreen,
      hidden: p.hidden,
    };
    if (p.name !== undefined) e.name = p.name;
    if (p.inlineText !== undefined) e.inlineText = p.inlineText;
    entryOf.set(p, e);
    return e;
  });
  for (const p of kept) {
    const e = entryOf.get(p)!;
    for (const c of p.children) {
      const ce = entryOf.get(c)!;
      ce.parent = e;
      e.children.push(ce);
    }
  }
  const byRef = new Map<string, SnapshotEntry>();
  for (const e of entries) byRef.set(e.ref, e);
  return { screen, roots: pendingRoots.map((p) => entryOf.get(p)!), entries, byRef };
}

/** Characters that print nothing (bidi marks, zero-width spaces) or only an icon-font glyph (private use area). */
const INVISIBLE =
  /[\s\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff\ue000-\uf8ff\u{f0000}-\u{10ffff}]/gu;

/**
 * Whether a string says something to a reader (not only spaces, invisible marks or icon-font
 * glyphs).
 *
 * @param s the string
 * @returns true when it has a visible character
 */
export function isReadable(s: string | undefined): s is string {
  return s !== undefined && s.replace(INVISIBLE, "") !== "";
}

/**
 * The label the snapshot shows: the first readable of text, content description and name
 * (an icon glyph as text gives way to its description), or "". A text field's label is the
 * first readable of content description, name and hint; its text is its value
 * ({@linkcode fieldValue}). The ref hashes {@linkcode nodeLabel} as it is.
 *
 * @param node the node
 * @returns the label shown
 */
export function visibleLabel(node: UiNode): string {
  if (isTextField(node)) {
    // A text field's text is its value (what was typed, or the hint while empty): see fieldValue.
    if (isReadable(node.contentDescription)) return node.contentDescription;
    if (isReadable(node.name)) return node.name;
    if (isReadable(node.hint)) return node.hint;
    return "";
  }
  if (isReadable(node.text)) return node.text;
  if (isReadable(node.contentDescription)) return node.contentDescription;
  if (isReadable(node.name)) return node.name;
  return "";
}

/**
 * The label an entry shows: its node's {@linkcode visibleLabel}, else the name read from its
 * content (Android, unlabelled clickable elements), else "".
 *
 * @param entry the snapshot entry
 * @returns the label shown
 */
export function entryLabel(entry: SnapshotEntry): string {
  return visibleLabel(entry.node) || (entry.name ?? "");
}

/** How many nodes of a screen hold each exact text and each exact content description. */
export interface LabelCounts {
  text: Map<string, number>;
  contentDescription: Map<string, number>;
}

/**
 * Counts the texts and content descriptions of every node of a tree (hidden ones too), for
 * {@linkcode contentName}'s "unique on the screen".
 *
 * @param root the screen's root
 * @returns the counts
 */
export function countLabels(root: UiNode): LabelCounts {
  const text = new Map<string, number>(), contentDescription = new Map<string, number>();
  const stack = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (n.text !== undefined) text.set(n.text, (text.get(n.text) ?? 0) + 1);
    const d = n.contentDescription;
    if (d !== undefined) contentDescription.set(d, (contentDescription.get(d) ?? 0) + 1);
    for (const c of n.children) stack.push(c);
  }
  return { text, contentDescription };
}

/** An icon font's glyph (private-use code points): a picture, not a label a user reads. */
const ICON_GLYPH = /^[\p{Co}\s]+$/u;
/** The most characters of descendant labels {@linkcode contentName} joins. */
const MAX_CONTENT_NAME = 120;

/**
 * The name of an unlabelled clickable element read from its content, as TalkBack reads it and
 * as the optimizer names it (`engine/optimizer/android_labels.ts`, heuristics v2): its first
 * descendant content description that is unique on the screen, else its first descendant text
 * unique on the screen; else its descendants' labels (description, else text) joined with ", ",
 * cut after 120 characters. Hidden descendants are skipped, and so is everything inside a
 * clickable descendant (another control's labels). A description that repeats its node's text
 * and adds to it (`"You said  Hiii 12:30 pm ."`) is a summary, not a name; icon glyphs are no
 * text.
 *
 * @param node the clickable element
 * @param counts {@linkcode countLabels} of the whole screen
 * @returns the name, or undefined when no descendant has a readable label
 * @example
 * ```ts
 * import { makeNode } from "./ui_node.ts";
 * const row = makeNode({ className: "android.view.View", clickable: true, children: [
 *   makeNode({ className: "android.widget.TextView", text: "Android Auto" }),
 *   makeNode({ className: "android.widget.TextView", text: "Not allowed" })] });
 * if (contentName(row, countLabels(row)) !== "Android Auto") throw new Error();
 * ```
 */
export function contentName(node: UiNode, counts: LabelCounts): string | undefined {
  let desc: string | undefined, text: string | undefined;
  const parts: string[] = [];
  let length = 0;
  const stack = node.children.toReversed();
  while (stack.length > 0) {
    const d = stack.pop()!;
    const visible = d.visible;
    if (visible && d.clickable) continue; // another control: its labels are its own
    for (let c = d.children.length - 1; c >= 0; c--) stack.push(d.children[c]!);
    if (!visible) continue;
    const summary = d.text !== undefined && d.contentDescription !== d.text &&
      d.contentDescription?.includes(d.text) === true;
    const ownDesc = isReadable(d.contentDescription) && !summary ? d.contentDescription : undefined;
    const ownText = isReadable(d.text) && !ICON_GLYPH.test(d.text) ? d.text : undefined;
    if (desc === undefined && ownDesc !== undefined) {
      if (counts.contentDescription.get(ownDesc) === 1) desc = ownDesc;
    }
    if (text === undefined && ownText !== undefined && counts.text.get(ownText) === 1) {
      text = ownText;
    }
    if (desc !== undefined) return desc;
    const spoken = ownDesc ?? ownText;
    if (spoken !== undefined && length < MAX_CONTENT_NAME) {
      parts.push(spoken);
      length += spoken.length + 2;
    }
  }
  if (text !== undefined) return text;
  return parts.length > 0 ? parts.join(", ") : undefined;
}

/**
 * The value a text field shows after its label (`- EditText "Email" [ref=k42]: bob@example.com`):
 * its `value`, else its text, unless that is the hint shown while the field is empty or the
 * label itself; never a password field's. Undefined for other nodes.
 *
 * @param node the node
 * @returns the value typed, or undefined
 * @example
 * ```ts
 * import { makeNode } from "./ui_node.ts";
 * const empty = makeNode({ className: "android.widget.EditText", text: "Email", hint: "Email" });
 * const typed = makeNode({ className: "android.widget.EditText", text: "bob@example.com", hint: "Email" });
 * if (fieldValue(empty) !== undefined || fieldValue(typed) !== "bob@example.com") throw new Error();
 * ```
 */
export function fieldValue(node: UiNode): string | undefined {
  if (!isTextField(node) || node.password) return undefined;
  const v = node.value ?? node.text;
  if (!isReadable(v)) return undefined;
  if (node.value === undefined && v === node.hint) return undefined; // the hint, nothing typed
  return v === visibleLabel(node) ? undefined : v;
}

/** Android `com.android.systemui` windows shown beside a window of another package. */
function androidSystemWindows(screen: Screen): Set<UiNode> {
  const out = new Set<UiNode>();
  if (screen.platform !== "android") return out;
  const windows = screen.root.className === "hierarchy" ? screen.root.children : [];
  const pkg = (n: UiNode) => n.attrs?.package ?? "";
  if (!windows.some((w) => pkg(w) !== "com.android.systemui" && pkg(w) !== "")) return out;
  for (const w of windows) if (pkg(w) === "com.android.systemui") out.add(w);
  return out;
}

const STATUS_BAR = "XCUIElementTypeStatusBar";

/** Whether a screen has a `StatusBar` element (XCUITest reports one where the tree holds it). */
function hasStatusBar(root: UiNode): boolean {
  for (const [n] of walk(root)) if (n.className === STATUS_BAR) return true;
  return false;
}

/**
 * iOS status bar chrome, scroll indicators and chevrons (whole non-interactive subtrees). The
 * status bar is the `StatusBar` element; only on a screen without one (a Maestro or Trailblaze
 * tree, whose nodes are all `Other`) is it found by position: small `Other` elements with a
 * label in the top 50 pt, as the clock, signal and battery items are. A typed element there (a
 * navigation bar's `StaticText`, a `Button`) is the app's.
 */
function iosChrome(
  n: UiNode,
  screenWidth: number,
  statusBarByPosition: boolean,
  isChrome: (n: UiNode) => boolean,
): boolean {
  if (n.className === STATUS_BAR) return true;
  if (isInteractive(n)) return false;
  const negligible = (c: UiNode) =>
    isChrome(c) || (c.children.length === 0 && visibleLabel(c) === "" && !isInteractive(c));
  if (!n.children.every(negligible)) return false;
  const b = n.bounds;
  const label = visibleLabel(n);
  if (CHEVRON_LABELS.has(label)) return true;
  if (b.w <= 0 || b.h <= 0) return false;
  const statusBar = statusBarByPosition && n.className === "XCUIElementTypeOther" && b.y >= 0 &&
    b.y + b.h <= 50 && b.w < screenWidth / 2 && label !== "";
  const tallThin = b.h >= 8 * b.w;
  const wideThin = b.w >= 8 * b.h && b.h <= 10;
  // XCUITest reports indicators with a 30 pt frame and a percentage value ("0%").
  const percent = /^\d{1,3}\s?%$/.test(n.value ?? n.text ?? "") && Math.min(b.w, b.h) <= 32;
  return statusBar || tallThin || wideThin || percent;
}
