/**
 * Parser of Appium XCUITest page source (`<AppiumAUT><XCUIElementTypeApplication …>`).
 * Coordinates are logical points given as `x y width height`.
 *
 * @module
 */
import { flag, node } from "./_parse_util.ts";
import type { Screen, UiNode } from "./ui_node.ts";
import { parseXml, syntaxErrorAt, type XmlElement } from "./xml.ts";

/** Element types whose `value` is the displayed text. */
const TEXT_TYPES = new Set([
  "XCUIElementTypeStaticText",
  "XCUIElementTypeTextField",
  "XCUIElementTypeSecureTextField",
  "XCUIElementTypeSearchField",
  "XCUIElementTypeTextView",
]);

/** Element types a user taps or types into. */
export const IOS_INTERACTIVE_TYPES: ReadonlySet<string> = new Set([
  "XCUIElementTypeButton",
  "XCUIElementTypeLink",
  "XCUIElementTypeCell",
  "XCUIElementTypeSwitch",
  "XCUIElementTypeToggle",
  "XCUIElementTypeTextField",
  "XCUIElementTypeSecureTextField",
  "XCUIElementTypeSearchField",
  "XCUIElementTypeTextView",
  "XCUIElementTypeSlider",
  "XCUIElementTypeStepper",
  "XCUIElementTypeSegmentedControl",
  "XCUIElementTypeKey",
  "XCUIElementTypeTab",
  "XCUIElementTypeMenuItem",
  "XCUIElementTypePickerWheel",
  "XCUIElementTypeCheckBox",
  "XCUIElementTypeRadioButton",
  "XCUIElementTypePageIndicator",
]);

const SCROLL_TYPES = new Set([
  "XCUIElementTypeScrollView",
  "XCUIElementTypeTable",
  "XCUIElementTypeCollectionView",
]);

const CHECK_TYPES = new Set([
  "XCUIElementTypeSwitch",
  "XCUIElementTypeToggle",
  "XCUIElementTypeCheckBox",
  "XCUIElementTypeRadioButton",
]);

function num(text: string, el: XmlElement, name: string): number {
  const raw = el.attrs[name];
  if (raw === undefined) return 0;
  const v = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(v)) {
    throw syntaxErrorAt(
      text,
      el.offset,
      `Invalid ${name} ${JSON.stringify(raw)} (expected a number)`,
    );
  }
  return v;
}

/**
 * Parses Appium XCUITest page source into a screen.
 *
 * `name` (the accessibility identifier, falling back to the label) becomes `resourceId`,
 * `label` the `contentDescription` and `name`, `value` the `value` — and the `text` of static
 * text and text inputs.
 *
 * @param text the XML source
 * @returns the screen, in points
 * @throws {SyntaxError} on malformed XML or coordinates, or a root that is not XCUITest's,
 * naming the line and column
 * @example
 * ```ts
 * const s = parseIos('<AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" x="0" y="0" width="390" height="844"/></AppiumAUT>');
 * if (s.width !== 390 || s.platform !== "ios") throw new Error();
 * ```
 */
export function parseIos(text: string): Screen {
  const doc = parseXml(text);
  if (doc.name !== "AppiumAUT" && !doc.name.startsWith("XCUIElementType")) {
    throw syntaxErrorAt(
      text,
      doc.offset,
      `Not XCUITest page source: the root element is <${doc.name}> (expected <AppiumAUT> or <XCUIElementType…>)`,
    );
  }
  const convert = (el: XmlElement): UiNode => {
    const a = el.attrs;
    const type = a.type || el.name;
    const value = a.value;
    const label = a.label;
    const attrs: Record<string, string> = { tag: el.name };
    if (a.index !== undefined) attrs.index = a.index;
    if (a.accessible !== undefined) attrs.accessible = a.accessible;
    if (a.placeholderValue) attrs.placeholder = a.placeholderValue;
    const isCheck = CHECK_TYPES.has(type);
    return node({
      className: type,
      text: TEXT_TYPES.has(type) ? (value || label) : undefined,
      resourceId: a.name?.trim() ? a.name : undefined,
      contentDescription: label?.trim() ? label : undefined,
      name: label?.trim() ? label : undefined,
      hint: a.placeholderValue,
      value: isCheck ? undefined : value,
      bounds: {
        x: num(text, el, "x"),
        y: num(text, el, "y"),
        w: num(text, el, "width"),
        h: num(text, el, "height"),
      },
      clickable: IOS_INTERACTIVE_TYPES.has(type),
      enabled: flag(a.enabled, true),
      focused: flag(a.focused) || flag(a.hasFocus),
      checked: isCheck && (value === "1" || value === "true"),
      checkable: isCheck,
      selected: flag(a.selected),
      scrollable: SCROLL_TYPES.has(type),
      password: type === "XCUIElementTypeSecureTextField",
      visible: flag(a.visible, true),
      attrs,
      children: el.children.map(convert),
    });
  };
  const top = doc.name === "AppiumAUT" ? doc.children : [doc];
  const app = top[0];
  if (!app) throw syntaxErrorAt(text, doc.offset, "Empty XCUITest source: no application element");
  const root = top.length === 1 ? convert(app) : node({
    className: "AppiumAUT",
    children: top.map(convert),
  });
  if (top.length > 1) {
    const first = root.children[0]!.bounds;
    root.bounds = { x: 0, y: 0, w: first.x + first.w, h: first.y + first.h };
  }
  return {
    platform: "ios",
    format: "xcuitest",
    root,
    width: root.bounds.x + root.bounds.w,
    height: root.bounds.y + root.bounds.h,
  };
}
