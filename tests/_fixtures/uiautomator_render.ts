/**
 * Generated UiAutomator page sources for the Android robustness sets: a tree of element specs
 * rendered as the XML `/source` answers, with the bounds of each logical element (what the flow
 * acts on) so a replay can be scored by the element it hit.
 *
 * @module
 */

/** A rectangle in screen pixels. */
export type Box = { x: number; y: number; w: number; h: number };

/** One generated screen: its XML and the bounds of each logical element on it. */
export interface GeneratedScreen {
  xml: string;
  logical: Map<string, Box>;
  /** Resource id → logical element (for text typed into a field). */
  ids: Map<string, string>;
}

/** One element of a generated screen. */
export interface Spec {
  cls: string;
  id?: string;
  text?: string;
  desc?: string;
  box: Box;
  clickable?: boolean;
  checkable?: boolean;
  scrollable?: boolean;
  logical?: string;
  children?: Spec[];
}

const esc = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/**
 * Renders a spec tree as a UiAutomator page source of an app.
 *
 * @param root the root element
 * @param w the screen's width
 * @param h the screen's height
 * @param pkg the app's package
 * @returns the XML and the logical elements' bounds and ids
 */
export function renderUiAutomator(root: Spec, w: number, h: number, pkg: string): GeneratedScreen {
  const logical = new Map<string, Box>();
  const ids = new Map<string, string>();
  const node = (s: Spec, index: number): string => {
    if (s.logical) logical.set(s.logical, s.box);
    if (s.logical && s.id) ids.set(s.id, s.logical);
    const b = s.box;
    const attrs = [
      `index="${index}"`,
      `text="${esc(s.text ?? "")}"`,
      `resource-id="${esc(s.id ?? "")}"`,
      `class="${s.cls}"`,
      `package="${pkg}"`,
      `content-desc="${esc(s.desc ?? "")}"`,
      `checkable="${s.checkable === true}"`,
      `checked="false"`,
      `clickable="${s.clickable === true}"`,
      `enabled="true"`,
      `focusable="${s.clickable === true}"`,
      `focused="false"`,
      `scrollable="${s.scrollable === true}"`,
      `long-clickable="false"`,
      `password="false"`,
      `selected="false"`,
      `bounds="[${b.x},${b.y}][${b.x + b.w},${b.y + b.h}]"`,
      `displayed="true"`,
    ].join(" ");
    const kids = (s.children ?? []).map((c, k) => node(c, k)).join("");
    return kids ? `<node ${attrs}>${kids}</node>` : `<node ${attrs} />`;
  };
  const xml = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>` +
    `<hierarchy index="0" class="hierarchy" rotation="0" width="${w}" height="${h}">` +
    node(root, 0) + `</hierarchy>`;
  return { xml, logical, ids };
}
