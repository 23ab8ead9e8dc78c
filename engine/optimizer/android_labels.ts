/**
 * Heuristics v2, Android: a control with no label or authored id of its own (a Jetpack Compose
 * row, an icon button whose content description sits on a child) is named by its first
 * descendant label that is unique on the screen, as TalkBack reads it and a Maestro user writes it (`text:
 * "pet_time_lock"`, `contentDescription: "Navigate up"`). Tapping the label taps inside the
 * control. Labels inside a nested clickable descendant belong to that control and are skipped.
 *
 * @module
 */
import type { ScreenTable } from "../screens/mod.ts";
import type { Candidate } from "./draft.ts";
import { generatedIdReason } from "./generated.ts";

// Scores on the mobile scale of selectors.ts (content description 2, parent context 3, text 4,
// class + index 5): a child's label is one step less direct than the control's own.
const DESCENDANT_DESC_SCORE = 2.3; // a child's accessibility label: stable, one hop from the control
const DESCENDANT_TEXT_SCORE = 4; // a child's visible copy: as fragile as the control's own text
/** An icon font's glyph (private-use code points): a picture, not a label a user reads. */
const ICON_GLYPH = /^[\p{Co}\s]+$/u;

/**
 * Selector candidates naming a clickable control by its first unique descendant content
 * description and its first unique descendant text (none when the control has a content
 * description or an authored id of its own; no text when it has text).
 *
 * @param table the screen
 * @param node the control's index
 * @returns zero to two candidates, unique on the screen and inside the control
 * @example
 * ```ts
 * import { ScreenTable } from "../screens/screen_table.ts";
 * import { makeNode } from "../screens/ui_node.ts";
 * const icon = makeNode({ className: "android.view.View", contentDescription: "Navigate up" });
 * const button = makeNode({ className: "android.view.View", clickable: true, children: [icon] });
 * const t = ScreenTable.from(makeNode({ className: "hierarchy", children: [button] }));
 * const c = descendantLabelCandidates(t, t.indexOf(button));
 * if (c[0]?.selector.contentDescription !== "Navigate up") throw new Error();
 * ```
 */
export function descendantLabelCandidates(table: ScreenTable, node: number): Candidate[] {
  const n = table.node(node);
  const authored = (id: string | undefined) =>
    id !== undefined && generatedIdReason(id, { level: 2, screen: table }) === undefined;
  if (!n.clickable) return []; // a list or a pane: its labels are elsewhere in it, not on it
  if (n.contentDescription || authored(n.resourceId) || authored(n.testId)) return [];
  let desc: string | undefined;
  let text: string | undefined;
  const end = table.subtreeEnd(node);
  for (let i = node + 1; i < end; i++) {
    const d = table.node(i);
    if (!d.visible) continue;
    if (d.clickable) {
      i = table.subtreeEnd(i) - 1; // another control's labels
      continue;
    }
    // A description that repeats the node's text and adds to it ("You said  Hiii 12:30 pm .")
    // is a summary with state in it: the text is the label.
    const summary = d.text !== undefined && d.contentDescription !== d.text &&
      d.contentDescription?.includes(d.text) === true;
    if (desc === undefined && d.contentDescription && !summary) {
      if (table.count({ contentDescription: d.contentDescription }) === 1) {
        desc = d.contentDescription;
      }
    }
    if (!n.text && text === undefined && d.text && !ICON_GLYPH.test(d.text)) {
      if (table.count({ text: d.text }) === 1) text = d.text;
    }
    if (desc !== undefined && (text !== undefined || n.text)) break;
  }
  const out: Candidate[] = [];
  if (desc !== undefined) {
    out.push({
      selector: { contentDescription: desc },
      score: DESCENDANT_DESC_SCORE,
      family: "contentDescription",
      matches: 1,
    });
  }
  if (text !== undefined) {
    out.push({ selector: { text }, score: DESCENDANT_TEXT_SCORE, family: "text", matches: 1 });
  }
  return out;
}
