/**
 * Stable element refs (docs/architecture.md "Node model and refs"): one letter and one to three digits
 * hashed from a node's class, label and centre rounded to 10 px, so a toast, a spinner or any
 * unrelated element appearing changes no other ref. Collisions on one screen get a letter
 * suffix in document order (`k42`, `k42b`, `k42c`).
 *
 * The hash is FNV-1a 32-bit over the UTF-8 bytes of
 * `className + "\u0000" + label + "\u0000" + round10(cx) + "," + round10(cy)`; the WASM module
 * (`wasm/`) computes the same and its reference test compares against {@linkcode refHash}.
 *
 * The label ({@linkcode nodeLabel}) is the node's text, else content description, else name —
 * except for a text field ({@linkcode isTextField}), whose text is what was typed: its label is
 * the content description, else name, else hint, so typing into a field keeps its ref (as on
 * the web, where a textbox's label is its accessible name, not its value).
 *
 * @module
 */
import { center, type UiNode } from "./ui_node.ts";

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Rounds a coordinate to the nearest 10 (`Math.round(v / 10) * 10`; -0 prints as "0"). */
export function round10(v: number): number {
  return Math.round(v / 10) * 10;
}

function fnvString(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      h = Math.imul(h ^ c, FNV_PRIME);
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd; // lone surrogate: encoded as U+FFFD, like TextEncoder
    if (c < 0x800) {
      h = Math.imul(h ^ (0xc0 | (c >> 6)), FNV_PRIME);
    } else if (c < 0x10000) {
      h = Math.imul(h ^ (0xe0 | (c >> 12)), FNV_PRIME);
      h = Math.imul(h ^ (0x80 | ((c >> 6) & 0x3f)), FNV_PRIME);
    } else {
      h = Math.imul(h ^ (0xf0 | (c >> 18)), FNV_PRIME);
      h = Math.imul(h ^ (0x80 | ((c >> 12) & 0x3f)), FNV_PRIME);
      h = Math.imul(h ^ (0x80 | ((c >> 6) & 0x3f)), FNV_PRIME);
    }
    h = Math.imul(h ^ (0x80 | (c & 0x3f)), FNV_PRIME);
  }
  return h;
}

/**
 * The ref hash of a node: FNV-1a 32-bit over the UTF-8 bytes of
 * `className + "\u0000" + label + "\u0000" + String(round10(cx)) + "," + String(round10(cy))`.
 *
 * @param className the node's class name
 * @param label text, else content description, else name, else ""
 * @param cx the x of the node's centre (`center(bounds).x`)
 * @param cy the y of the node's centre
 * @returns the unsigned 32-bit hash
 * @example
 * ```ts
 * if (refHash("", "", 0, 0) !== refHash("", "", 4, -4)) throw new Error(); // same 10 px cell
 * ```
 */
export function refHash(className: string, label: string, cx: number, cy: number): number {
  let h = fnvString(FNV_OFFSET, className);
  h = Math.imul(h ^ 0, FNV_PRIME);
  h = fnvString(h, label);
  h = Math.imul(h ^ 0, FNV_PRIME);
  h = fnvString(h, `${round10(cx)},${round10(cy)}`);
  return h >>> 0;
}

/**
 * The ref text of a hash: a letter (`h % 26`) and up to three digits (`floor(h / 26) % 1000`).
 *
 * @param hash an unsigned 32-bit hash
 * @returns the ref, e.g. `y778`
 * @example
 * ```ts
 * if (refFromHash(26 * 42 + 10) !== "k42") throw new Error();
 * ```
 */
export function refFromHash(hash: number): string {
  return LETTERS[hash % 26]! + String(Math.floor(hash / 26) % 1000);
}

const TEXT_FIELD_CLASSES: ReadonlySet<string> = new Set([
  "android.widget.EditText",
  "android.widget.AutoCompleteTextView",
  "android.widget.MultiAutoCompleteTextView",
  "XCUIElementTypeTextField",
  "XCUIElementTypeSecureTextField",
  "XCUIElementTypeSearchField",
  "XCUIElementTypeTextView",
  "textbox",
  "searchbox",
  "combobox",
]);

/**
 * Whether a node is a text field by its class: an Android EditText (or a subclass), an iOS text
 * field or view, a web textbox, searchbox or combobox.
 *
 * @param n the node
 * @returns true for a text field's class
 * @example
 * ```ts
 * import { makeNode } from "./ui_node.ts";
 * if (!isTextField(makeNode({ className: "com.google.android.material.textfield.TextInputEditText" }))) throw new Error();
 * ```
 */
export function isTextField(n: { className: string }): boolean {
  return TEXT_FIELD_CLASSES.has(n.className) || n.className.endsWith("EditText");
}

/**
 * The label a ref hashes: text, else content description, else accessible name, else "". A
 * text field's text is its value (what was typed, or the hint while empty), so a text field's
 * label is its content description, else name, else hint, else "": typing keeps the ref.
 *
 * @param node the node
 * @returns the label
 * @example
 * ```ts
 * import { makeNode } from "./ui_node.ts";
 * const typed = makeNode({ className: "android.widget.EditText", text: "bob@example.com", hint: "Email" });
 * if (nodeLabel(typed) !== "Email") throw new Error();
 * ```
 */
export function nodeLabel(node: UiNode): string {
  // Nodes hold no empty strings (makeNode drops them), so `||` and `??` agree here.
  if (isTextField(node)) return node.contentDescription || node.name || node.hint || "";
  return node.text || node.contentDescription || node.name || "";
}

/**
 * The ref of a node before collision suffixes.
 *
 * @param node the node
 * @returns the base ref
 */
export function baseRef(node: UiNode): string {
  const c = center(node.bounds);
  return refFromHash(refHash(node.className, nodeLabel(node), c.x, c.y));
}

/**
 * The suffix of the n-th holder of one base ref: "" for the first, then `b`, `c`, … `z`, `ba`, ….
 *
 * @param n 0 for the first node with the base ref
 * @returns the suffix
 */
export function collisionSuffix(n: number): string {
  if (n === 0) return "";
  let s = "";
  let k = n;
  while (k > 0) {
    s = LETTERS[k % 26]! + s;
    k = Math.floor(k / 26);
  }
  return s; // 1 → "b", 25 → "z", 26 → "ba"
}

/**
 * Assigns refs to nodes given in document order: the base ref, with a letter suffix for the
 * second and later nodes that share it.
 *
 * @param nodes the nodes that carry refs, in document order
 * @returns the ref of each node, in the same order
 * @example
 * ```ts
 * import { makeNode } from "./ui_node.ts";
 * const a = makeNode({ className: "Button", text: "OK" });
 * const [r1, r2] = assignRefs([a, { ...a }]);
 * if (r2 !== r1 + "b") throw new Error();
 * ```
 */
export function assignRefs(nodes: readonly UiNode[]): string[] {
  const seen = new Map<string, number>();
  return nodes.map((n) => {
    const base = baseRef(n);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    return base + collisionSuffix(count);
  });
}
