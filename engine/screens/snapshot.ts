/**
 * The text snapshot of a screen, in the spirit of Playwright's aria snapshot: one line per
 * shown element, indented by nesting, native class names shown short, generic containers
 * lifted away, the label in quotes, state annotations and a stable ref:
 *
 * ```text
 * - Toolbar:
 *   - ImageButton "Navigate up" [ref=t209]
 *   - TextView "Settings" [ref=c18]
 * - Switch "Wi-Fi" [checked] [ref=y778]
 * - EditText "Email" [focused] [ref=k42b]: alice@example.com
 * - ViewGroup [ref=p311]: Sign in
 * (3 offscreen)
 * ```
 *
 * A line is `- Class "label" [states] [ref=R] {x:…,y:…,w:…,h:…}`, then `:` when children follow
 * or `: text` for a lone text child (or an input's value) shown inline. A text field is labelled
 * by its content description, else hint, and shows what was typed after `:` (never a password's
 * value), so typing keeps its label and ref. iOS `Other` elements show only their label. Refs
 * come from {@linkcode snapshotTree}; `resolveRef` reads the same walk.
 *
 * @module
 */
import {
  entryLabel,
  fieldValue,
  isInteractiveClass,
  isReadable,
  shortClassName,
  type SnapshotEntry,
  snapshotTree,
  visibleLabel,
} from "./snapshot_tree.ts";
import type { Screen } from "./ui_node.ts";

export { resolveRef, resolveRefAction } from "./resolve_ref.ts";
export { type SnapshotEntry, snapshotTree } from "./snapshot_tree.ts";

/** Options of {@linkcode renderSnapshot}: progressive disclosure. */
export interface RenderSnapshotOptions {
  /** Append each element's bounds, `{x:120,y:450,w:200,h:40}`. */
  bounds?: boolean;
  /** Include off-screen and hidden elements, marked `[offscreen]` / `[hidden]`. Otherwise the off-screen ones (outside the viewport, not the hidden) are counted in a last `(N offscreen)` line. */
  offscreen?: boolean;
  /** Show at most this many levels; an element whose children are cut shows `[+N]` (N elements below). */
  depth?: number;
  /** Render only the subtree of this ref. */
  root?: string;
}

/** Classes (short names) whose `value` is shown inline: inputs and adjustable controls. */
const VALUE_CLASSES = new Set([
  "TextField",
  "SearchField",
  "Slider",
  "PickerWheel",
  "ProgressIndicator",
  "Stepper",
  "SeekBar",
  "ProgressBar",
  "textbox",
  "searchbox",
  "combobox",
  "slider",
  "spinbutton",
  "progressbar",
  "meter",
]);

/** Longest label shown before it is cut with an ellipsis. */
const MAX_LABEL = 120;

function quote(s: string): string {
  const cut = s.length > MAX_LABEL ? s.slice(0, MAX_LABEL - 1) + "…" : s;
  return JSON.stringify(cut);
}

function annotations(e: SnapshotEntry, screen: Screen, label: string): string {
  const n = e.node;
  let out = "";
  if (
    isReadable(n.text) && isReadable(n.contentDescription) &&
    n.contentDescription.trim() !== n.text.trim() && n.contentDescription.trim() !== label.trim()
  ) {
    out += ` [desc=${quote(n.contentDescription)}]`;
  }
  const level = n.attrs?.level;
  if (level !== undefined && n.className === "heading") out += ` [level=${level}]`;
  // Android: what a tap acts on, when its class does not say so (a row, a card, an icon).
  if (screen.platform === "android" && n.clickable && !isInteractiveClass(n)) {
    out += " [clickable]";
  }
  if (n.checked) out += " [checked]";
  else if (n.attrs?.checked === "mixed") out += " [checked=mixed]";
  else if (n.checkable) out += " [checked=false]";
  if (!n.enabled) out += " [disabled]";
  if (n.focused) out += " [focused]";
  if (n.selected) out += " [selected]";
  if (n.password) out += " [password]";
  if (n.scrollable) out += " [scrollable]";
  const expanded = n.attrs?.expanded;
  if (expanded === "true") out += " [expanded]";
  if (n.hint !== undefined && n.hint.trim() !== label.trim()) {
    out += screen.platform === "web"
      ? ` [placeholder=${quote(n.hint)}]`
      : ` [hint=${quote(n.hint)}]`;
  }
  return out;
}

function entryLine(
  e: SnapshotEntry,
  screen: Screen,
  options: RenderSnapshotOptions,
  indent: string,
  hasChildren: boolean,
  cut: number,
): string {
  const n = e.node;
  const short = shortClassName(n.className);
  const label = entryLabel(e);
  let line = indent + "- ";
  if (short !== "Other" || label === "") line += short;
  if (label !== "") line += (short !== "Other" ? " " : "") + quote(label);
  if (n.testId !== undefined && visibleLabel(n) === "") line += ` [id=${quote(n.testId)}]`;
  line += annotations(e, screen, label);
  if (options.offscreen && e.offscreen) line += e.hidden ? " [hidden]" : " [offscreen]";
  line += ` [ref=${e.ref}]`;
  if (cut > 0) line += ` [+${cut}]`;
  if (options.bounds) {
    const b = n.bounds;
    line += ` {x:${Math.round(b.x)},y:${Math.round(b.y)},w:${Math.round(b.w)},h:${
      Math.round(b.h)
    }}`;
  }
  const inline = e.inlineText ?? fieldValue(n) ??
    (n.value !== undefined && n.value !== label && !n.password && VALUE_CLASSES.has(short)
      ? n.value
      : undefined);
  if (inline !== undefined) line += ": " + inlineText(inline);
  else if (hasChildren) line += ":";
  return line;
}

function inlineText(s: string): string {
  const one = s.length > MAX_LABEL ? s.slice(0, MAX_LABEL - 1) + "…" : s;
  return /[\n\r"]|^\s|\s$|^$/.test(one) ? JSON.stringify(one) : one;
}

/**
 * Renders the text snapshot of a screen.
 *
 * @param screen the parsed screen
 * @param options bounds, offscreen, depth, subtree root
 * @returns the snapshot text, one element per line, ending with a newline
 * @throws {RangeError} when `options.root` names no ref of this screen
 * @throws {SyntaxError} when `options.root` is not a ref
 * @example
 * ```ts
 * import { makeNode } from "./ui_node.ts";
 * const root = makeNode({ className: "android.widget.FrameLayout", bounds: { x: 0, y: 0, w: 100, h: 100 },
 *   children: [makeNode({ className: "android.widget.Button", text: "OK", bounds: { x: 10, y: 10, w: 40, h: 20 } })] });
 * const text = renderSnapshot({ platform: "android", format: "uiautomator2", width: 100, height: 100, root });
 * if (!/^- Button "OK" \[ref=[a-z]\d+\]\n$/.test(text)) throw new Error(text);
 * ```
 */
export function renderSnapshot(screen: Screen, options: RenderSnapshotOptions = {}): string {
  const tree = snapshotTree(screen);
  let tops = tree.roots;
  if (options.root !== undefined) {
    const ref = options.root.trim().replace(/^(@|ref=)/, "");
    if (!/^[a-z][0-9]{1,3}[a-z]*$/.test(ref)) {
      throw new SyntaxError(
        `Invalid ref ${JSON.stringify(options.root)}: expected a letter and 1-3 digits`,
      );
    }
    const entry = tree.byRef.get(ref);
    if (!entry) {
      throw new RangeError(`Cannot render subtree ${ref}: no element on this screen has it`);
    }
    tops = [entry];
  }
  const maxDepth = options.depth ?? Infinity;
  const lines: string[] = [];
  let skipped = 0;
  const shown = (e: SnapshotEntry) => options.offscreen === true || !e.offscreen;
  const countShown = (e: SnapshotEntry): number => {
    let c = 0;
    for (const k of e.children) c += (shown(k) ? 1 : 0) + countShown(k);
    return c;
  };
  // hidden elements (a select's closed popup, a password's mask) are not counted: only what
  // lies outside the viewport is offscreen; `offscreen: true` shows both, marked
  const countSkipped = (e: SnapshotEntry): number => {
    let c = shown(e) || e.hidden ? 0 : 1;
    for (const k of e.children) c += countSkipped(k);
    return c;
  };
  const render = (e: SnapshotEntry, level: number) => {
    if (!shown(e)) {
      if (!e.hidden) skipped++;
      for (const c of e.children) render(c, level);
      return;
    }
    const atLimit = level + 1 >= maxDepth;
    const below = e.children.length > 0 ? countShown(e) : 0;
    if (atLimit) {
      for (const c of e.children) skipped += countSkipped(c);
      lines.push(entryLine(e, screen, options, "  ".repeat(level), false, below));
      return;
    }
    lines.push(entryLine(e, screen, options, "  ".repeat(level), below > 0, 0));
    for (const c of e.children) render(c, level + 1);
  };
  if (maxDepth >= 1) { for (const e of tops) render(e, 0); }
  if (lines.length === 0) lines.push("(no elements)");
  if (skipped > 0 && !options.offscreen) lines.push(`(${skipped} offscreen)`);
  return lines.join("\n") + "\n";
}
