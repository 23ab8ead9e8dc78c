/**
 * Whether text can be typed into a node: what `blaze type` checks before it types, so typing
 * into a heading fails instead of reporting success.
 *
 * @module
 */
import { isTextField } from "../../engine/screens/mod.ts";
import { type UiNode, walk } from "../../engine/screens/mod.ts";

/** Roles of the web's text fields (a `<select>` is a combobox too: typing picks an option). */
const EDITABLE_ROLES = new Set(["textbox", "searchbox", "combobox", "spinbutton"]);

/**
 * Whether a node takes typed text: a text field (an input or textarea, a textbox, searchbox,
 * combobox or spinbutton role, an Android EditText or iOS text field) or contenteditable
 * content, that is neither disabled nor read-only.
 *
 * @param node the node
 * @returns true when typing into it can change it
 * @example
 * ```ts
 * import { makeNode } from "../../engine/screens/ui_node.ts";
 * import { isEditable } from "./editable.ts";
 * if (isEditable(makeNode({ className: "heading", role: "heading" }))) throw new Error();
 * if (!isEditable(makeNode({ className: "textbox", role: "textbox" }))) throw new Error();
 * ```
 */
export function isEditable(node: UiNode): boolean {
  if (!node.enabled || node.attrs?.readonly === "true") return false;
  return isTextKind(node);
}

/** Whether a node is of a kind that takes text, whether or not it is enabled and writable. */
function isTextKind(node: UiNode): boolean {
  return isTextField(node) ||
    EDITABLE_ROLES.has(node.role ?? node.className) ||
    EDITABLE_ROLES.has(node.className) ||
    node.attrs?.editable === "true";
}

/**
 * What typing at a point goes into: the node there, or the nearest of its ancestors that is a
 * text field or editable content (a point on the text inside a field or a contenteditable is a
 * point in it), so a bare point is checked as a ref is.
 *
 * @param path the node at the point and its ancestors, root first and the node last
 * @returns the field the point is in, or else the element at the point (not its text run)
 * @example
 * ```ts
 * import { makeNode } from "../../engine/screens/ui_node.ts";
 * import { fieldAt } from "./editable.ts";
 * const text = makeNode({ className: "StaticText", text: "hi" });
 * const box = makeNode({ className: "generic", attrs: { editable: "true" }, children: [text] });
 * if (fieldAt([box, text]) !== box) throw new Error();
 * ```
 */
export function fieldAt(path: readonly UiNode[]): UiNode | undefined {
  return path.findLast(isTextKind) ?? path.findLast((n) => !TEXT_RUNS.has(n.className)) ??
    path.at(-1);
}

/** Runs of web text: a point on a button's label is a point on the button. */
const TEXT_RUNS = new Set(["StaticText", "InlineTextBox"]);

/**
 * Why typing into a node cannot work, or undefined when it can.
 *
 * @param node the target, or undefined when typing goes to the focused element
 * @param label how the target is named in messages
 * @returns the message for the agent
 */
export function notEditable(node: UiNode | undefined, label: string): string | undefined {
  if (!node) return "No text field has the focus (tap one first, or give its ref)";
  if (isEditable(node)) return undefined;
  const why = !node.enabled
    ? "it is disabled"
    : node.attrs?.readonly === "true"
    ? "it is read-only"
    : "it is not a text field or editable content";
  return `Cannot type into ${label}: ${why}`;
}

/**
 * The element that has the focus: the last focused node in document order (the deepest).
 *
 * @param root the screen's root
 * @returns the focused node, or undefined when none is
 */
export function focusedNode(root: UiNode | undefined): UiNode | undefined {
  let found: UiNode | undefined;
  if (root) { for (const [n] of walk(root)) if (n.focused) found = n; }
  return found;
}
