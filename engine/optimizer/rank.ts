/**
 * Selector candidates of one node, ranked by durability: every kind the node's properties allow,
 * each checked for uniqueness on the whole screen, with parent context or an index added only
 * when needed; generated ids and classes never.
 *
 * @module
 */
import type { ScreenTable } from "../screens/mod.ts";
import type { Selector } from "../trail/mod.ts";
import type { UiNode } from "../screens/mod.ts";
import type { Candidate } from "./draft.ts";
import { generatedClassReason, type GeneratedIdOptions, generatedIdReason } from "./generated.ts";
import { descendantLabelCandidates } from "./android_labels.ts";
import { countSelector, matchSelector } from "./selector_match.ts";
import { escapeRegex } from "../trail/mod.ts";
import { fieldLabel } from "../playback/mod.ts";
import { dynamicPattern, findAndroidAnchors, withAnchors } from "./anchors.ts";
import {
  CLASS_INDEX_SCORE,
  CONTENT_DESC_SCORE,
  ID_SCORE,
  INDEX_AFTER_TEXT_PENALTY,
  LAST_RESORT_INDEX_SCORE,
  MAX_INDEX,
  MAX_PARENT_HOPS,
  OBFUSCATED_ID_SCORE,
  OBFUSCATED_RESOURCE_NAME,
  PARENT_CONTEXT_SCORE,
  TEST_ID_SCORE,
  TEXT_PATTERN_PENALTY,
  TEXT_SCORE,
  WEB_ARIA_LABEL_SCORE,
  WEB_CSS_PATH_SCORE,
  WEB_ID_SCORE,
  WEB_ROLE_NAME_SCORE,
  WEB_TEST_ID_SCORE,
  WEB_TEXT_SCORE,
  WEB_XY_SCORE,
  WITH_INDEX_PENALTY,
  WITH_PARENT_PENALTY,
  WITH_TEXT_FLOOR,
  WITH_TEXT_PENALTY,
  XY_SCORE,
} from "./scores.ts";
import {
  demoteEditableText,
  PAGE_ROLES,
  pageCandidates,
  refineWeb,
  SECOND_ANCHOR_PENALTY,
  WITH_ANCHOR_PENALTY,
} from "./rank_web.ts";

/**
 * A clock time (`12:39`, `1:13 pm`, `23:05:10`): an Android content description holding one (a
 * Messages bubble's "You said  Hiii 12:30 pm .", a clock) says something else on the next run.
 */
export const CLOCK_TIME =
  /(?<![\d:])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s*[ap]\.?\s?m\b\.?)?(?![\d:])/i;

/**
 * v2, Android: why a content description is no selector (it holds a clock time), or undefined.
 *
 * @param desc a content description
 * @returns the reason, e.g. `dynamic: holds the time "12:30 pm", which changes from run to run`
 * @example
 * ```ts
 * if (dynamicDescriptionReason("You said  Hiii 12:30 pm .") === undefined) throw new Error();
 * if (dynamicDescriptionReason("Navigate up") !== undefined) throw new Error();
 * ```
 */
export function dynamicDescriptionReason(desc: string): string | undefined {
  const t = CLOCK_TIME.exec(desc);
  return t
    ? `dynamic: holds the time ${JSON.stringify(t[0])}, which changes from run to run`
    : undefined;
}

/** Editable fields (Android EditText, iOS text fields, web textboxes): their text is a value. */
export const EDITABLE =
  /EditText|TextField|XCUIElementTypeTextView|UITextView|textbox|searchbox|combobox|TextArea/i;

/**
 * Is the node an editable field, whose text is a placeholder or the current value?
 *
 * @param node the node
 * @returns true for EditText, text fields, web textboxes and password fields
 */
export function isEditable(node: UiNode): boolean {
  if (node.password) return true;
  if (node.role && /^(textbox|searchbox|combobox)$/i.test(node.role)) return true;
  return EDITABLE.test(node.className);
}

/** Web: an element whose content the user edits (contenteditable, Chrome's `editable` state). */
export function editableContent(node: UiNode): boolean {
  return node.attrs?.editable === "true";
}

/** Options of {@linkcode rankSelectors}. */
export interface RankOptions {
  platform: "web" | "android" | "ios";
  /** The point acted on (for the xy candidate). */
  point?: { x: number; y: number };
  /** Screen size, recorded with xy. */
  size?: { width: number; height: number };
  /** Leave the node's text out (it is the value read or asserted, not an identity). */
  excludeText?: boolean;
  /** The heuristics level (`heuristicsLevel`, default 1): v2's web and Android changes apply from 2. */
  level?: number;
  /** The node is a control a tap acted on (v2, Android: named by a child's label when unlabelled). */
  control?: boolean;
  /**
   * v3, web: the NL step the action belongs to. A name holding a number that the step names
   * as it is (`18:05` in "Pick the 18:05 show") is the choice, not data that changes.
   */
  stepText?: string;
}

export interface Base {
  family: string;
  score: number;
  sel: Selector;
  rejected?: string;
}

export function baseCandidates(
  node: UiNode,
  web: boolean,
  excludeText: boolean,
  ids: GeneratedIdOptions,
): Base[] {
  const out: Base[] = [];
  const idWhy = node.resourceId ? generatedIdReason(node.resourceId, ids) : undefined;
  const testWhy = node.testId ? generatedIdReason(node.testId, ids) : undefined;
  const classWhy = generatedClassReason(node.className);
  const withReject = (b: Base, why: string | undefined): Base => why ? { ...b, rejected: why } : b;
  if (web) {
    if (node.testId) {
      out.push(withReject(
        { family: "testId", score: WEB_TEST_ID_SCORE, sel: { testId: node.testId } },
        testWhy && `generated test id (${testWhy})`,
      ));
    }
    if (node.contentDescription) {
      out.push({
        family: "contentDescription",
        score: WEB_ARIA_LABEL_SCORE,
        sel: { ariaLabel: node.contentDescription },
      });
    }
    const role = node.role ?? node.className;
    if (node.name && role && role !== "StaticText" && !(excludeText && node.name === node.text)) {
      out.push({ family: "roleName", score: WEB_ROLE_NAME_SCORE, sel: { role, name: node.name } });
    }
    if (node.resourceId) {
      out.push(withReject(
        { family: "id", score: WEB_ID_SCORE, sel: { id: node.resourceId } },
        idWhy && `generated id (${idWhy})`,
      ));
    }
    if (node.text && !excludeText) {
      out.push({ family: "text", score: WEB_TEXT_SCORE, sel: { text: node.text } });
    }
    if (node.attrs?.cssPath && node.attrs.cssPath !== `#${node.resourceId}`) {
      out.push({
        family: "cssPath",
        score: WEB_CSS_PATH_SCORE,
        sel: { cssPath: node.attrs.cssPath },
      });
    }
    return out;
  }
  if (node.resourceId) {
    out.push(withReject(
      { family: "id", score: ID_SCORE, sel: { id: node.resourceId } },
      idWhy && `generated id (${idWhy})`,
    ));
  }
  if (node.testId) {
    out.push(withReject(
      { family: "testId", score: TEST_ID_SCORE, sel: { testId: node.testId } },
      testWhy && `generated test id (${testWhy})`,
    ));
  }
  if (node.contentDescription) {
    out.push({
      family: "contentDescription",
      score: CONTENT_DESC_SCORE,
      sel: { contentDescription: node.contentDescription },
    });
  }
  if (node.text && !excludeText) {
    out.push({ family: "text", score: TEXT_SCORE, sel: { text: node.text } });
  }
  out.push(withReject(
    { family: "classIndex", score: CLASS_INDEX_SCORE, sel: { className: node.className } },
    classWhy && `generated class name (${classWhy})`,
  ));
  return out;
}

export const SHAPES = new WeakMap<ScreenTable, Map<string, number[]>>();

export function shapeOf(text: string): string {
  return text.replace(/\d+/g, "#");
}

/** Node indices by text shape, built once per table. */
export function shapeIndex(table: ScreenTable): Map<string, number[]> {
  let m = SHAPES.get(table);
  if (m === undefined) {
    m = new Map();
    for (let i = 0; i < table.size; i++) {
      const t = table.node(i).text;
      if (t === undefined || !/\d/.test(t)) continue;
      const k = shapeOf(t);
      const list = m.get(k);
      if (list) list.push(i);
      else m.set(k, [i]);
    }
    SHAPES.set(table, m);
  }
  return m;
}

/** The nearest ancestor that a durable property identifies uniquely, as a selector. */
export function durableAncestor(
  table: ScreenTable,
  i: number,
  web: boolean,
  ids: GeneratedIdOptions,
): Selector | undefined {
  let hops = 0;
  for (const a of table.ancestors(i)) {
    if (++hops > MAX_PARENT_HOPS) break;
    const n = table.node(a);
    const options: Selector[] = [];
    if (n.testId && !generatedIdReason(n.testId, ids)) options.push({ testId: n.testId });
    if (n.resourceId && !generatedIdReason(n.resourceId, ids)) options.push({ id: n.resourceId });
    // ids.level is set on Android under v2 only: a description with a time in it changes
    if (n.contentDescription && !(ids.level && dynamicDescriptionReason(n.contentDescription))) {
      options.push(
        web ? { ariaLabel: n.contentDescription } : {
          contentDescription: n.contentDescription,
        },
      );
    }
    for (const o of options) if (countSelector(table, o) === 1) return o;
  }
  return undefined;
}

/**
 * Ranks the selector candidates of a node: every candidate with its uniqueness and, when
 * rejected, the reason; sorted by score (most durable first), the xy fallback last.
 *
 * @param table the screen the node is on
 * @param node the node's index
 * @param options platform, point, screen size
 * @returns the candidates; the first without `rejected` is the best
 */
export function rankSelectors(table: ScreenTable, node: number, options: RankOptions): Candidate[] {
  const web = options.platform === "web";
  const n = table.node(node);
  if (web && (options.level ?? 1) >= 2 && PAGE_ROLES.has(n.role ?? n.className ?? "")) {
    return pageCandidates(n, options);
  }
  const out: Candidate[] = [];
  const seen = new Set<string>();
  const add = (c: Candidate) => {
    const key = JSON.stringify(c.selector);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(c);
  };
  const end = table.subtreeEnd(node);
  const check = (sel: Selector, inside = false): { matches: number; pickedOther: boolean } => {
    const m = matchSelector(table, sel, 2);
    const i = m.indices[0] ?? -1;
    const mine = inside ? i >= node && i < end : i === node;
    return { matches: m.count, pickedOther: m.count === 1 && !mine };
  };
  // Android under v2: short resource names judged by the screen, controls named by a child label.
  const v2Android = options.platform === "android" && (options.level ?? 1) >= 2;
  const v3Android = v2Android && (options.level ?? 1) >= 3;
  const ids: GeneratedIdOptions = v2Android ? { level: options.level!, screen: table } : {};
  let bases = baseCandidates(n, web, options.excludeText === true, ids);
  // A bare resource name is the node's test id too (Compose testTag): on Android the two are
  // the same lookup, so a fallback chain would list `id: X, index: N` and `testId: X, index: N`.
  if (v2Android && n.testId !== undefined && n.testId === n.resourceId) {
    bases = bases.filter((b) => b.family !== "testId");
  }
  // A description with a clock time in it (a message bubble's, a clock's) fails on replay.
  const timed = v2Android && n.contentDescription !== undefined
    ? dynamicDescriptionReason(n.contentDescription)
    : undefined;
  if (timed) {
    bases = bases.map((b) => b.family === "contentDescription" ? { ...b, rejected: timed } : b);
  }
  // v2, web: contenteditable content (AX `editable`) too: its text is what was typed there
  const editable = isEditable(n) || (web && (options.level ?? 1) >= 2 && editableContent(n));
  // A control without text of its own (a button around a label): its one label's text.
  let labelText: string | undefined;
  if (!n.text && options.excludeText !== true && !editable) {
    const labels: number[] = [];
    const v3 = (options.level ?? 1) >= 3;
    for (let i = node + 1; i < end && labels.length < 2; i++) {
      const d = table.node(i);
      // v3: a field's text is the value typed there (or its placeholder), no label
      if (d.text && !(v3 && isEditable(d))) labels.push(i);
    }
    if (labels.length === 1) {
      const text = table.node(labels[0]!).text!;
      labelText = text;
      const c = check({ text }, true);
      add({
        selector: { text },
        score: web ? WEB_TEXT_SCORE : TEXT_SCORE,
        family: "text",
        matches: c.matches,
        ...(c.matches === 1 && !c.pickedOther ? {} : { rejected: `matches ${c.matches} nodes` }),
      });
    }
  }
  if (v2Android && options.control && options.excludeText !== true && !editable) {
    for (const c of descendantLabelCandidates(table, node)) add(c);
  }
  let parent: Selector | undefined | null = null;
  for (const b of bases) {
    if (b.rejected) {
      const obfuscated = v2Android && b.family === "id" &&
        b.rejected.startsWith(OBFUSCATED_RESOURCE_NAME);
      const c = obfuscated ? check(b.sel) : undefined;
      if (c && c.matches === 1 && !c.pickedOther) {
        add({ selector: b.sel, score: OBFUSCATED_ID_SCORE, family: "obfuscatedId", matches: 1 });
        continue;
      }
      add({ selector: b.sel, score: b.score, family: b.family, matches: -1, rejected: b.rejected });
      continue;
    }
    const single = check(b.sel);
    const isClass = b.family === "classIndex";
    if (single.matches === 1 && !single.pickedOther) {
      // v3: the Android player looks a class up by its instance only (`className` + `index`)
      const sel = isClass && !web && (options.level ?? 1) >= 3 ? { ...b.sel, index: 0 } : b.sel;
      add({ selector: sel, score: b.score, family: b.family, matches: 1 });
      continue;
    }
    if (!isClass) {
      add({
        selector: b.sel,
        score: b.score,
        family: b.family,
        matches: single.matches,
        rejected: `matches ${single.matches} nodes`,
      });
    }
    // v3, Android: a control repeated in list rows, anchored to its row by a text the row shows
    // (`childOf: { text }`, as the player's row-anchored lookup): an index is the last resort.
    let rowAnchored = false;
    if (v3Android && single.matches > 1) {
      const all = matchSelector(table, b.sel, table.size).indices;
      const own = [n.text, labelText].filter((t): t is string => t !== undefined);
      const anchors = findAndroidAnchors(table, node, all, own);
      if (anchors) {
        rowAnchored = true;
        add({
          selector: withAnchors(b.sel, anchors),
          score: (isClass ? PARENT_CONTEXT_SCORE : b.score) + WITH_ANCHOR_PENALTY +
            SECOND_ANCHOR_PENALTY * (anchors.length - 1),
          family: isClass ? "parent" : b.family,
          matches: 1,
        });
      }
    }
    // Combine with the node's text (minimal second property); never an editable field's
    // text, which is its placeholder or value.
    let textCombo = false;
    if (b.family !== "text" && n.text && !options.excludeText && !web && !editable) {
      const sel = { ...b.sel, text: n.text };
      const c = check(sel);
      textCombo = c.matches === 1 && !c.pickedOther;
      add({
        selector: sel,
        score: Math.max(b.score, WITH_TEXT_FLOOR) + WITH_TEXT_PENALTY,
        family: b.family,
        matches: c.matches,
        ...(textCombo ? {} : { rejected: `matches ${c.matches} nodes` }),
      });
    }
    // Parent context: the type (or property) under a durable ancestor (tried even when the
    // text combination is unique: it does not break on copy edits).
    if (parent === null) parent = durableAncestor(table, node, web, ids);
    if (parent) {
      const sel = { ...b.sel, childOf: parent };
      const c = check(sel);
      const score = isClass ? PARENT_CONTEXT_SCORE : b.score + WITH_PARENT_PENALTY;
      add({
        selector: sel,
        score,
        family: isClass ? "parent" : b.family,
        matches: c.matches,
        ...(c.matches === 1 && !c.pickedOther ? {} : { rejected: `matches ${c.matches} nodes` }),
      });
      if (c.matches === 1 && !c.pickedOther) continue;
    }
    // v3: an index too, ranked after the text combination: a fallback that holds no text (the
    // text may be the value asserted)
    const indexAfterText = textCombo && (options.level ?? 1) >= 3;
    if ((textCombo && !indexAfterText) || rowAnchored) continue;
    // Index among the matches, capped.
    const all = matchSelector(table, b.sel, MAX_INDEX + 1);
    const at = all.indices.indexOf(node);
    if (at >= 0) {
      const score = v2Android
        ? LAST_RESORT_INDEX_SCORE + b.score / 100
        : isClass
        ? CLASS_INDEX_SCORE
        : b.score + WITH_INDEX_PENALTY;
      const withText = Math.max(b.score, WITH_TEXT_FLOOR) + WITH_TEXT_PENALTY;
      add({
        selector: { ...b.sel, index: at },
        score: indexAfterText ? Math.max(score, withText + INDEX_AFTER_TEXT_PENALTY) : score,
        family: b.family,
        matches: 1,
        ...(v3Android && all.count > 1
          ? {
            lastResort: `position ${at} among ${all.count} matches: no text in its row picks ` +
              `it alone, so a reordered or longer list may move it`,
          }
          : {}),
      });
    } else if (isClass && !indexAfterText) {
      add({
        selector: b.sel,
        score: CLASS_INDEX_SCORE,
        family: b.family,
        matches: all.count,
        rejected: `index beyond ${MAX_INDEX}`,
      });
    }
  }
  const v2web = web && (options.level ?? 1) >= 2;
  // Text with a number in it ("Cart (3)"): a pattern tolerant of the number changing.
  const shown = options.excludeText === true || editable ? undefined : n.text ?? labelText;
  if (!v2web && shown && /\d/.test(shown) && /\p{L}/u.test(shown)) {
    const textRegex = shown.split(/\d+/).map(escapeRegex).join("\\d+");
    // The pattern matches exactly the texts of the same shape (digit runs as #): one indexed
    // lookup per screen instead of a regex over every node.
    const same = shapeIndex(table).get(shapeOf(shown)) ?? [];
    const i = same[0] ?? -1;
    const mine = n.text === undefined ? i >= node && i < end : i === node;
    const c = { matches: same.length, pickedOther: same.length === 1 && !mine };
    add({
      selector: { textRegex },
      score: (web ? WEB_TEXT_SCORE : TEXT_SCORE) + TEXT_PATTERN_PENALTY,
      family: "textPattern",
      matches: c.matches,
      ...(c.matches === 1 && !c.pickedOther ? {} : { rejected: `matches ${c.matches} nodes` }),
    });
  }
  if (options.point) {
    const sel: Selector = { xy: [Math.round(options.point.x), Math.round(options.point.y)] };
    if (options.size) sel.viewport = { width: options.size.width, height: options.size.height };
    add({ selector: sel, score: web ? WEB_XY_SCORE : XY_SCORE, family: "xy", matches: 1 });
  }
  if (editable) demoteEditableText(out);
  if (v2web) refineWeb(table, node, out, options, labelText);
  // v3, Android: a value read or asserted by its shape (`\$\d[\d.,]*`), on the screen or
  // within its row: a fallback that holds when the id is renamed and the value changes.
  const valueShape = v3Android && options.excludeText === true && n.text !== undefined &&
      !editable
    ? dynamicPattern(n.text, true)
    : undefined;
  // only an amount, a count, a time (a shape with words in it holds copy or a slot's value)
  if (valueShape !== undefined && !/\p{L}/u.test(n.text!)) {
    const sel: Selector = { textRegex: valueShape };
    const all = matchSelector(table, sel, table.size).indices;
    const anchors = all.length > 1 ? findAndroidAnchors(table, node, all, [n.text!]) : undefined;
    if (all.length === 1 && all[0] === node) {
      add({
        selector: sel,
        score: TEXT_SCORE + TEXT_PATTERN_PENALTY,
        family: "textPattern",
        matches: 1,
        valueShape: true,
      });
    } else if (anchors) {
      add({
        selector: withAnchors(sel, anchors),
        score: TEXT_SCORE + TEXT_PATTERN_PENALTY + WITH_ANCHOR_PENALTY,
        family: "textPattern",
        matches: 1,
        valueShape: true,
      });
    }
  }
  // v3, Android: a value read or asserted is never read by a class's index beside a selector
  // that names the element: after a list or layout change it reads whatever lies there now,
  // and a wrong value is worse than a step that fails.
  if (v3Android && options.excludeText === true) {
    const named = out.some((c) =>
      !c.rejected && c.matches === 1 && c.selector.index === undefined &&
      c.selector.xy === undefined
    );
    for (const c of out) {
      if (!named || c.rejected) continue;
      if (
        c.family === "classIndex" && c.selector.index !== undefined
      ) {
        c.rejected = "positional: a value read by its position reads whatever lies there " +
          "after a layout change";
      }
    }
  }
  // v3, Android: a text field's label (the TextView just before it) is its name, as TalkBack
  // reads it: a field found by its position is checked against it when played (a form whose
  // fields moved puts another field there)
  const label = v3Android && editable ? fieldLabel(table.node(0), n) : undefined;
  if (label !== undefined) {
    for (const c of out) {
      if (c.selector.index !== undefined && c.selector.name === undefined) {
        c.selector = { ...c.selector, name: label };
      }
    }
  }
  return out.sort((a, b) => (a.rejected ? 1 : 0) - (b.rejected ? 1 : 0) || a.score - b.score);
}
