/**
 * Whether text can be typed into a node: what `blaze type` checks before it types, so typing
 * into a heading fails instead of reporting success.
 *
 * @module
 */
import { isTextField } from "../engine/resolve_ref.ts";
import { type UiNode, walk } from "../engine/ui_node.ts";

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
 * import { makeNode } from "../engine/ui_node.ts";
 * import { isEditable } from "./_blaze_editable.ts";
 * if (isEditable(makeNode({ className: "heading", role: "heading" }))) throw new Error();
 * if (!isEditable(makeNode({ className: "textbox", role: "textbox" }))) throw new Error();
 * ```
 */
export function isEditable(node: UiNode): boolean {
  if (!node.enabled || node.attrs?.readonly === "true") return false;
  return isTextField(node) ||
    EDITABLE_ROLES.has(node.role ?? node.className) ||
    EDITABLE_ROLES.has(node.className) ||
    node.attrs?.editable === "true";
}

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
