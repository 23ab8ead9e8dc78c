/**
 * The selectors pass: for every resolved node, candidates ranked by durability, each checked
 * for uniqueness against the whole screen, minimised (one property before two), with parent
 * context or an index added only when needed. Generated ids and class names are never chosen.
 *
 * Ranking (000): Android/iOS id > contentDescription > type + parent context > text >
 * class + index > xy; web (003's cascade) testId > aria-label > role + name > id > text >
 * CSS path > xy. Lower scores are more durable.
 *
 * @module
 */
import type { ScreenTable } from "../screens/mod.ts";
import type { Selector, SelectorMode } from "../trail/mod.ts";
import type { UiNode } from "../screens/mod.ts";
import type { Candidate, Draft, DraftAction, PassContext } from "./draft.ts";
import { generatedClassReason, type GeneratedIdOptions, generatedIdReason } from "./generated.ts";
import { descendantLabelCandidates } from "./android_labels.ts";
import { countSelector, matchSelector } from "./selector_match.ts";
import { escapeRegex } from "../trail/mod.ts";
import { fieldLabel, isPageCssPath } from "../playback/mod.ts";
import { readAriaChain } from "../formats/mod.ts";
import {
  dynamicPattern,
  elementText,
  findAnchors,
  findAndroidAnchors,
  matchWeb,
  norm,
  withAnchors,
} from "./anchors.ts";

// Mobile scores.
const ID_SCORE = 1; // authored resource id / accessibility identifier: survives copy and layout changes
const TEST_ID_SCORE = 1; // authored for tests (Compose testTag, RN testID): as durable as an id
const CONTENT_DESC_SCORE = 2; // accessibility label: stable, but copy can change
const PARENT_CONTEXT_SCORE = 3; // type under a durable ancestor: survives copy changes, not re-parenting
const TEXT_SCORE = 4; // visible copy: breaks on localisation and copy edits
const CLASS_INDEX_SCORE = 5; // position among same-class nodes: breaks when a sibling is added
const XY_SCORE = 6; // coordinates: break on any layout change

// Web scores (003's cascade order).
const WEB_TEST_ID_SCORE = 1; // data-testid family: authored for tests
const WEB_ARIA_LABEL_SCORE = 2; // aria-label: accessibility contract
const WEB_ROLE_NAME_SCORE = 3; // role + accessible name: what a user perceives
const WEB_ID_SCORE = 4; // DOM id: often stable, sometimes framework-generated
const WEB_TEXT_SCORE = 5; // visible copy
const WEB_CSS_PATH_SCORE = 6; // structure: breaks on markup changes
const WEB_XY_SCORE = 7; // coordinates scaled by viewport

// Penalties for combined candidates.
// A combination that needs the node's text ranks after every single durable property (an id,
// a test id, a content description): it breaks on any copy edit, a unique label does not.
const WITH_TEXT_FLOOR = CONTENT_DESC_SCORE;
const WITH_TEXT_PENALTY = 0.2; // a second property that disambiguates
// An editable field's text is its placeholder or the value typed: it changes every run.
const EDITABLE_TEXT_PENALTY = XY_SCORE;
const WITH_PARENT_PENALTY = 0.4; // scoped under a durable ancestor
const WITH_INDEX_PENALTY = 1.5; // n-th of several: fragile
// v2, Android: an index is the last resort (000: combine properties first), after every
// candidate without one, the class + text combination included, and before xy; among indexed
// candidates the more durable property first.
const LAST_RESORT_INDEX_SCORE = CLASS_INDEX_SCORE + 0.5;
// v2, Android: an obfuscated resource name (R8's `bf2`) unique on the screen. The next build may
// rename it, so it ranks after every durable candidate and strict mode never takes it; within
// a build it holds, which an index among same-class nodes does not: it ranks before any index.
const OBFUSCATED_ID_SCORE = CLASS_INDEX_SCORE + 0.25;
const OBFUSCATED_RESOURCE_NAME = "generated id (an obfuscated resource name";
const TEXT_PATTERN_PENALTY = 0.1; // copy with its numbers as \d+: survives counts, not copy edits
const MAX_INDEX = 20; // beyond this an index is noise, not a selector
const INDEX_AFTER_TEXT_PENALTY = 0.05; // v3: an index ranks after the unique text combination
const MAX_PARENT_HOPS = 6; // how far up a durable ancestor is looked for

/**
 * A clock time (`12:39`, `1:13 pm`, `23:05:10`): an Android content description holding one (a
 * Messages bubble's "You said  Hiii 12:30 pm .", a clock) says something else on the next run.
 */
const CLOCK_TIME =
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
const EDITABLE =
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
function editableContent(node: UiNode): boolean {
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
}

interface Base {
  family: string;
  score: number;
  sel: Selector;
  rejected?: string;
}

function baseCandidates(
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

const SHAPES = new WeakMap<ScreenTable, Map<string, number[]>>();

function shapeOf(text: string): string {
  return text.replace(/\d+/g, "#");
}

/** Node indices by text shape, built once per table. */
function shapeIndex(table: ScreenTable): Map<string, number[]> {
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
function durableAncestor(
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

/** Roles of containers: their text is what they hold, not what they are. */
const CONTAINER_ROLES =
  /^(generic|group|region|section|article|main|complementary|navigation|form|dialog|list|log|feed|tabpanel|document|application|textbox)$/i;

/** Roles of the page itself (Chrome's root, the document): no lookup finds them by role. */
const PAGE_ROLES: ReadonlySet<string> = new Set(["RootWebArea", "WebArea", "document"]);

/**
 * v2, web: an action on the page itself (a click on its background, the hit test's root). A
 * role + name of the root (`RootWebArea "Shop"`) names no element the player can look up, so
 * the page is `cssPath: body`, as the Chrome Recorder writes a click on the body, with the point
 * (the player clicks the page there, refusing it when a control is there now). The body is one
 * per page: exact, so strict mode takes it too.
 */
function pageCandidates(n: UiNode, options: RankOptions): Candidate[] {
  const out: Candidate[] = [
    {
      selector: { cssPath: "body" },
      score: WEB_CSS_PATH_SCORE,
      family: "cssPath",
      matches: 1,
      exact: true,
    },
  ];
  if (options.point) {
    const sel: Selector = { xy: [Math.round(options.point.x), Math.round(options.point.y)] };
    if (options.size) sel.viewport = { width: options.size.width, height: options.size.height };
    out.push({ selector: sel, score: WEB_XY_SCORE, family: "xy", matches: 1 });
  }
  const role = n.role ?? n.className;
  if (n.name && role) {
    out.push({
      selector: { role, name: n.name },
      score: WEB_ROLE_NAME_SCORE,
      family: "roleName",
      matches: -1,
      rejected: `the page itself (${role}): no lookup finds it by role`,
    });
  }
  return out;
}

const WITH_ANCHOR_PENALTY = WITH_PARENT_PENALTY; // scoped to the row that shows a text
const SECOND_ANCHOR_PENALTY = 0.2;
/** v3: a control's role alone within its row: after its row-scoped labels and texts. */
const ROW_ROLE_SCORE = WEB_CSS_PATH_SCORE - 0.5;
/** The roles the web player finds by role alone within a row (see the cascade's ROW_ROLES). */
const ROW_ROLES: ReadonlySet<string> = new Set(["checkbox", "radio", "combobox", "button", "link"]);
const DYNAMIC_PENALTY = 3; // a number in a name: kept only when nothing else is left
const INTERACTIVE_HOPS = 3; // the player's coordinate check looks this far up (coordinates.ts)
/** A CSS path or selector that picks by position among siblings. */
const POSITIONAL_CSS = /:nth-(?:of-type|child)\(/;

function positional(c: Candidate): boolean {
  const s = c.selector;
  return s.index !== undefined || s.xy !== undefined ||
    (s.cssPath !== undefined && POSITIONAL_CSS.test(s.cssPath));
}

/** The copy a candidate matches by (aria-label, name, text), when it is one. */
function copyOf(sel: Selector): string | undefined {
  if (sel.childOf !== undefined || sel.index !== undefined) return undefined;
  return sel.ariaLabel ?? sel.contentDescription ?? sel.name ?? sel.text;
}

/**
 * Heuristics v2 on the web: candidates the player can replay as they were meant.
 *
 * - A name, label or text holding a number (`Checkout (2 items) $37.50`) becomes a pattern of
 *   the element's text; the exact copy is rejected while anything else works.
 * - A control or value without a unique durable property is anchored to its row by the text
 *   the row shows (`childOf: { text: Cactus }`), and positional candidates (an index, an
 *   `:nth-` CSS path, coordinates) are then rejected: a reordered list would move them.
 * - Coordinates on a point the player would refuse (no interactive element there) are rejected.
 * - Glyph text (`+`) is rejected while an aria-label or role + name names the control.
 */
function refineWeb(
  table: ScreenTable,
  node: number,
  out: Candidate[],
  options: RankOptions,
  labelText: string | undefined,
): void {
  const n = table.node(node);
  const value = options.excludeText === true;
  const editable = isEditable(n) || editableContent(n);
  const ok = (c: Candidate) => !c.rejected && c.matches === 1;
  // Copy with numbers: a pattern of the whole text the element shows.
  const dynamic = new Map<Candidate, string>();
  for (const c of out) {
    const copy = copyOf(c.selector);
    const p = copy === undefined ? undefined : dynamicPattern(copy);
    if (p !== undefined && !c.rejected) dynamic.set(c, p);
  }
  const shown = value || editable ? undefined : elementText(table, node) || undefined;
  const pattern = shown === undefined ? undefined : dynamicPattern(shown);
  if (pattern !== undefined) {
    const m = matchWeb(table, { textRegex: pattern });
    const mine = m.count === 1 && m.indices[0] === node;
    out.push({
      selector: { textRegex: pattern },
      score: WEB_TEXT_SCORE + TEXT_PATTERN_PENALTY,
      family: "textPattern",
      matches: m.count,
      ...(mine ? {} : { rejected: `matches ${m.count} nodes` }),
    });
  }
  // Row anchors, when nothing durable picks the node alone.
  const durable = out.some((c) =>
    ok(c) && !positional(c) && !dynamic.has(c) && c.family !== "xy" && c.family !== "cssPath"
  );
  // v3: the row anchor is a fallback beside a durable property too (a chain's scoped text)
  if (!durable || (options.level ?? 1) >= 3) {
    const bases: { sel: Selector; family: string; score: number }[] = [];
    if (n.testId && !generatedIdReason(n.testId)) {
      bases.push({ sel: { testId: n.testId }, family: "testId", score: WEB_TEST_ID_SCORE });
    }
    if (n.contentDescription && !dynamicPattern(n.contentDescription)) {
      bases.push({
        sel: { ariaLabel: n.contentDescription },
        family: "contentDescription",
        score: WEB_ARIA_LABEL_SCORE,
      });
    }
    if (n.resourceId && !generatedIdReason(n.resourceId)) {
      bases.push({ sel: { id: n.resourceId }, family: "id", score: WEB_ID_SCORE });
    }
    const v3 = (options.level ?? 1) >= 3;
    const own = value || editable ? undefined : n.text ?? labelText;
    if (own && !dynamicPattern(own) && /[\p{L}\p{N}]/u.test(own)) {
      bases.push({ sel: { text: norm(own) }, family: "text", score: WEB_TEXT_SCORE });
    }
    const read = value ? dynamicPattern(n.text ?? elementText(table, node), true) : pattern;
    if (read !== undefined) {
      bases.push({
        sel: { textRegex: read },
        family: "textPattern",
        score: WEB_TEXT_SCORE + TEXT_PATTERN_PENALTY,
      });
    }
    const exclude = [n.text, n.name, labelText, shown].filter((t): t is string => !!t);
    // Beside a durable property (v3), only a text the row scopes is a fallback: an id within
    // its row fails when the id does, a text unique alone needs no row, and a role + name
    // within a row anchor is no lookup the web player makes.
    const copyOnly = (b: { family: string }) => b.family === "text" || b.family === "textPattern";
    const ambiguous = (b: { sel: Selector }) => matchWeb(table, b.sel).count !== 1;
    let anchoredKinds = 0;
    // v3: a value's shape unique on the page (the one price shown) is a fallback of its own
    const shape = bases.find((b) => b.family === "textPattern");
    if (v3 && durable && value && shape && !ambiguous(shape)) {
      const m = matchWeb(table, shape.sel);
      if (m.indices[0] === node) {
        out.push({
          selector: shape.sel,
          score: shape.score,
          family: "textPattern",
          matches: 1,
          valueShape: true,
        });
      }
    }
    for (const b of durable ? bases.filter((b) => copyOnly(b) && ambiguous(b)) : bases) {
      const found = findAnchors(table, node, b.sel, exclude);
      if (!found) continue;
      const { anchors, index } = found;
      const selector = withAnchors(b.sel, anchors);
      if (index !== undefined) selector.index = index;
      const penalty = WITH_ANCHOR_PENALTY + SECOND_ANCHOR_PENALTY * (anchors.length - 1) +
        (index === undefined ? 0 : WITH_INDEX_PENALTY);
      const anchored: Candidate = {
        selector,
        score: b.score + penalty,
        family: b.family,
        matches: 1,
        ...(value && b.sel.textRegex !== undefined ? { valueShape: true } : {}),
      };
      const rows = anchors.map((t) => JSON.stringify(t)).join(" / ");
      for (const c of out) {
        if (durable || c.rejected || !positional(c)) continue;
        c.rejected = index === undefined
          ? `positional: the row showing ${rows} picks it (a reordered list would move it)`
          : `positional among every row: counted among the rows showing ${rows} instead`;
      }
      out.push(anchored);
      // v2 takes the first; v3 a second kind too, a fallback within the same row
      if (!v3 || ++anchoredKinds >= 2) break;
    }
    // v3: the control's role alone within its row (the row's one checkbox, select or button):
    // it holds when copy renames the control and no test id is left
    const role = n.role ?? "";
    if (v3 && !durable && !value && ROW_ROLES.has(role)) {
      const found = findAnchors(table, node, { role }, exclude);
      if (found && found.index === undefined) {
        out.push({
          selector: withAnchors({ role }, found.anchors),
          score: ROW_ROLE_SCORE + SECOND_ANCHOR_PENALTY * (found.anchors.length - 1),
          family: "roleName",
          matches: 1,
        });
      }
    }
  }
  // Copy with numbers loses to anything else that works.
  const other = out.some((c) => ok(c) && !dynamic.has(c) && c.family !== "xy");
  for (const [c, p] of dynamic) {
    if (other) c.rejected = `dynamic: holds a number that changes (pattern ${JSON.stringify(p)})`;
    else c.score += DYNAMIC_PENALTY;
  }
  // A glyph ("+", "×") is no name while a label or role + name is one.
  const named = out.some((c) =>
    ok(c) && (c.family === "contentDescription" || c.family === "roleName")
  );
  for (const c of out) {
    const t = c.selector.text;
    if (!c.rejected && named && t !== undefined && !/[\p{L}\p{N}]/u.test(t)) {
      c.rejected = "a glyph, not a name: the label names the control";
    }
  }
  // A container's text is its content, which changes (a scroll container's "inner", an
  // editor's "hi"): its aria-label is its name, and flexible mode must not prefer the content.
  const label = out.find((c) =>
    ok(c) && c.family === "contentDescription" && c.selector.childOf === undefined &&
    c.selector.index === undefined
  );
  if (label && (editable || n.scrollable || CONTAINER_ROLES.test(n.role ?? n.className))) {
    const name = norm(label.selector.ariaLabel ?? "");
    for (const c of out) {
      const s = c.selector;
      if (c.rejected || (s.text === undefined && s.textRegex === undefined)) continue;
      if (s.text !== undefined && norm(s.text) === name) continue;
      c.rejected = `content of a ${n.role ?? n.className}, not its name: the aria-label ${
        JSON.stringify(label.selector.ariaLabel)
      } names it`;
    }
  }
  // Coordinates the player would refuse.
  const xy = out.find((c) => c.family === "xy" && !c.rejected);
  if (xy && options.point && !interactiveAt(table, options.point)) {
    xy.rejected = "coordinates on a non-interactive element: the player refuses them";
  }
}

/** Does the player's coordinate check find an interactive element at the point? */
function interactiveAt(table: ScreenTable, point: { x: number; y: number }): boolean {
  const hit = table.hitTest(point);
  if (hit < 0) return false;
  const chain = [hit, ...table.ancestors(hit).slice(0, INTERACTIVE_HOPS)];
  return chain.some((i) => {
    const x = table.node(i);
    return x.clickable || x.checkable || x.hint !== undefined;
  });
}

/**
 * An editable field's text (placeholder or value) as a selector: rejected when any other
 * candidate besides xy works, else kept but ranked after every other selector.
 */
function demoteEditableText(out: Candidate[]): void {
  const usesText = (c: Candidate) =>
    c.selector.text !== undefined || c.selector.textRegex !== undefined;
  const other = out.some((c) => !c.rejected && !usesText(c) && c.selector.xy === undefined);
  for (const c of out) {
    if (!usesText(c) || c.rejected) continue;
    if (other) c.rejected = "editable field: its text is a placeholder or the value typed";
    else c.score += EDITABLE_TEXT_PENALTY;
  }
}

/** `[data-testid=X]`: what a trail's `testId` means on the web (playback looks it up so). */
const RECORDED_TEST_ID = /^\[data-testid=["']?([^"'\]]+)["']?\]$/;
/** Another test attribute (`data-test`, `data-cy`, …): as durable, kept as the CSS it is. */
const RECORDED_TEST_ATTRIBUTE = /^\[data-(?:test-id|test|cy|qa|pw)=["']?[^"'\]]+["']?\]$/;
const RECORDED_ID = /^#((?:\\.|[^\s>+~.#[\]\\])+)$/;
/**
 * The Chrome Recorder writes a `text/` selector as the whole text of an element when it is this
 * short, else as its first words (at least this many characters): `text/Custom selector` for
 * "Custom selector attribute". Chrome matches it as contained text.
 */
const RECORDER_TEXT_MIN = 12;

/**
 * Candidates from the selectors a recorder computed at run time (Chrome DevTools Recorder
 * `aria`/`css`/`text`, Cairn's human recorder `testId`/`ariaLabel`/`id`/`cssPath`), for actions
 * captured without a screen. They cannot be checked for uniqueness here: each is marked
 * unverified in its family, ranked by the web order.
 *
 * @param recorded selector kind → value (`target.selectors`)
 * @param options the heuristics level (default 1; from 2 an `aria` chain is read hop by hop, a
 *   Recorder `text/` selector that may be the first words of the text is a `textRegex` of that
 *   start, and a CSS selector on the flow's `testAttribute` is a test id)
 * @returns candidates, most durable first
 * @example
 * ```ts
 * const c = rankRecordedSelectors({ aria: "Mocha", css: "[data-test=Mocha]" });
 * if (c[0]?.selector.cssPath !== "[data-test=Mocha]" || c[2]?.selector.name !== "Mocha") {
 *   throw new Error();
 * }
 * ```
 */
export function rankRecordedSelectors(
  recorded: Readonly<Record<string, string>>,
  options: {
    level?: number;
    /** The selectors are a Chrome DevTools Recorder step's (`text` is its `text/` selector). */
    chrome?: boolean;
    /** A Recorder flow's `selectorAttribute` (`data-qa`): its selectors are authored test ids. */
    testAttribute?: string;
  } = {},
): Candidate[] {
  const v2 = (options.level ?? 1) >= 2;
  const ownTestAttribute = v2 && options.testAttribute
    ? new RegExp(`^\\[${escapeRegex(options.testAttribute)}=["']?[^"'\\]]+["']?\\]$`)
    : undefined;
  const names = Object.entries(recorded).flatMap(([k, v]) => {
    if (k.replace(/\.\d+$/, "") !== "aria") return [];
    const a = readAriaChain(v);
    return a ? [norm(a.name)] : [];
  });
  const out: Candidate[] = [];
  const push = (family: string, score: number, selector: Selector, rejected?: string) => {
    if (out.some((c) => JSON.stringify(c.selector) === JSON.stringify(selector))) return;
    out.push({ selector, score, family, matches: 1, ...(rejected ? { rejected } : {}) });
  };
  const id = (v: string) => {
    const why = generatedIdReason(v);
    push("id", WEB_ID_SCORE, { id: v }, why && `generated id (${why})`);
  };
  for (const [rawKey, v] of Object.entries(recorded)) {
    const key = rawKey.replace(/\.\d+$/, "");
    if (v === "") continue;
    if (key === "testId" || key === "data-testid") push("testId", WEB_TEST_ID_SCORE, { testId: v });
    else if (key === "ariaLabel") {
      push("contentDescription", WEB_ARIA_LABEL_SCORE, { ariaLabel: v });
    } else if (key === "aria") {
      // v2 reads a chain hop by hop (`Hello World >>> aria/[role="generic"]`: the element named
      // Hello World, the generic acted on lies inside it); v1 read it as one name
      const aria = v2 ? readAriaChain(v) : ariaV1(v);
      if (aria === undefined) continue;
      if (aria.role !== undefined) {
        push("roleName", WEB_ROLE_NAME_SCORE, { role: aria.role, name: aria.name });
      } else {
        // `aria/Name` is an accessible name, from aria-label or from the element's text: the
        // label is a guess (exact, so strict mode can take it), the name always holds
        push("contentDescription", WEB_ARIA_LABEL_SCORE, { ariaLabel: aria.name });
        push("roleName", WEB_ROLE_NAME_SCORE, { name: aria.name });
      }
    } else if (key === "id") id(v);
    else if (key === "text" && v2 && options.chrome) {
      push("text", WEB_TEXT_SCORE, recorderText(v, names));
    } else if (key === "text") push("text", WEB_TEXT_SCORE, { text: v });
    else if (key === "css" || key === "cssPath" || key === "pierce") {
      const t = RECORDED_TEST_ID.exec(v);
      const i = RECORDED_ID.exec(v);
      if (t) push("testId", WEB_TEST_ID_SCORE, { testId: t[1]! });
      else if (RECORDED_TEST_ATTRIBUTE.test(v) || ownTestAttribute?.test(v)) {
        push("testId", WEB_TEST_ID_SCORE, { cssPath: v });
      } else if (i) id(i[1]!.replace(/\\(.)/g, "$1"));
      else push("cssPath", WEB_CSS_PATH_SCORE, { cssPath: v });
    }
  }
  return out.sort((a, b) => (a.rejected ? 1 : 0) - (b.rejected ? 1 : 0) || a.score - b.score);
}

/**
 * A Chrome Recorder `text/` selector as a trail selector: the element's whole text when the
 * Recorder wrote it whole (shorter than its minimum, or the step's `aria/` name but for case:
 * CSS may capitalise the name), else a `textRegex` of the text's start (`Custom selector.*`):
 * the first words, which the exact text of a longer element never equals.
 */
function recorderText(v: string, names: readonly string[]): Selector {
  const text = norm(v);
  const lower = text.toLowerCase();
  if (v.trim().length < RECORDER_TEXT_MIN || names.some((n) => n.toLowerCase() === lower)) {
    return { text: v };
  }
  return { textRegex: `${escapeRegex(text)}.*` };
}

/** Heuristics v1's reading of a recorder's `aria` selector: a trailing role, the rest the name. */
function ariaV1(v: string): { name: string; role?: string } {
  const m = /^(.*)\[role="([\w-]+)"\]$/.exec(v);
  return m ? { name: m[1]!, role: m[2]! } : { name: v };
}

/** Actions whose node's own text is the value read or asserted. */
const VALUE_KINDS = new Set(["readText", "assertText"]);
/** Actions on a control (v2, Android: an unlabelled one is named by a child's label). */
export const CONTROL_KINDS: ReadonlySet<string> = new Set([
  "tap",
  "doubleTap",
  "longPress",
  "check",
]);

/**
 * The selectors pass: ranks the candidates of every resolved action.
 *
 * @param draft the draft after resolve
 * @param ctx screen tables
 * @returns the draft with `candidates` set
 */
export function selectorsPass(draft: Draft, ctx: PassContext): Draft {
  const platform = draft.model.platform;
  const v2web = platform === "web" && draft.level >= 2;
  const typedValues = new Set<string>();
  for (const a of draft.model.actions) {
    const text = a.data.kind === "inputText" ? a.data.text : undefined;
    if (a.ok && text !== undefined && text.trim() !== "") typedValues.add(norm(text));
  }
  return {
    ...draft,
    steps: draft.steps.map((s) => ({
      ...s,
      actions: s.actions.map((a): DraftAction => {
        const mode = s.selectorMode ?? draft.mode;
        const recorded = a.src.data.target?.selectors;
        if (
          a.node === undefined && (a.src.screen === undefined || a.recorderTarget) && recorded
        ) {
          const attribute = a.src.data.toolParams?.selectorAttribute;
          let candidates = rankRecordedSelectors(recorded, {
            level: draft.level,
            chrome: draft.model.sourceFormat === "chrome-recorder",
            ...(typeof attribute === "string" ? { testAttribute: attribute } : {}),
          });
          if (candidates.length === 0) return a;
          if (v2web) {
            candidates = shapeForMode(refineRecorded(candidates), mode, draft.level);
          }
          const notes = a.recorderTarget
            ? [...a.notes]
            : [...a.notes, "no screen captured: selectors from the recorder, unverified"];
          const start = candidates.find((c) => c.family === "text" && c.selector.textRegex);
          if (start && recorded.text !== undefined) {
            notes.push(
              `recorder text/${recorded.text}: the first words of the element's text (Chrome ` +
                `finds the element containing them), as ${
                  JSON.stringify(start.selector.textRegex)
                }`,
            );
          }
          const chain = v2web && recorded.aria?.includes(" >>> ")
            ? readAriaChain(recorded.aria)
            : undefined;
          if (chain) {
            notes.push(
              `recorder chain aria/${recorded.aria}: the element named ${
                JSON.stringify(chain.name)
              }${
                chain.inside.length > 0
                  ? ` (the ${chain.inside.join(" in a ")} acted on lies inside it)`
                  : ""
              }`,
            );
          }
          return { ...a, candidates, notes };
        }
        if (a.kind === "keyPress" && draft.level >= 3) return focusTarget(a, draft, mode, ctx);
        if (a.node === undefined || a.src.screen === undefined) return a;
        const table = ctx.table(a.src.screen);
        if (!table) return a;
        const size = draft.model.sizes.get(a.src.screen);
        let candidates = rankSelectors(table, a.node, {
          platform,
          ...(a.point ? { point: a.point } : {}),
          ...(size ? { size } : {}),
          excludeText: VALUE_KINDS.has(a.kind),
          level: draft.level,
          control: CONTROL_KINDS.has(a.kind),
        });
        if (!v2web) {
          // v3, Android: an assertion is also found by the text it asserts (the shape of it,
          // when its numbers are values), as Maestro's `assertVisible` finds it: a fallback
          // that holds when the id is renamed and the layout moves
          // (adaptive only, and only beside a more durable selector: a fallback, never the lead)
          if (
            platform === "android" && draft.level >= 3 && a.kind === "assertText" &&
            a.literal !== undefined && mode === "adaptive" &&
            candidates.some((c) =>
              !c.rejected && c.matches === 1 && c.selector.xy === undefined &&
              c.score < TEXT_SCORE
            )
          ) {
            const own = assertedText(table, a.node, a.literal, candidates);
            if (own) candidates = [...candidates, own];
          }
          return { ...a, candidates };
        }
        // v3: an assertion of a value this trail typed (a task's title as entered): its own text,
        // when it picks the element alone — the slots pass writes it as the typed slot
        if (draft.level >= 3 && a.kind === "assertText" && a.literal !== undefined) {
          const typed = typedText(table, a.node, a.literal, typedValues);
          if (typed) candidates = [...candidates, typed];
        }
        candidates = shapeForMode(candidates, mode, draft.level);
        const out: DraftAction = { ...a, candidates };
        // The text a visibility check saw (the target the agent named): kept, so the check
        // still says what it checked when its selector does not carry it.
        const name = a.src.data.target?.name;
        if (a.kind === "assertVisible" && a.literal === undefined && name !== undefined) {
          const shown = elementText(table, a.node);
          if (shown !== "" && shown === norm(name) && !dynamicPattern(shown, true)) {
            out.literal = shown;
            out.notes = [...a.notes, `asserted text ${JSON.stringify(shown)} (the target's name)`];
          }
        }
        return out;
      }),
    })),
  };
}

/**
 * v3, Android: the candidate of an assertion's expected text — its pattern when it holds numbers
 * (`You sent \$\d[\d.,]* to Alex`), else the text itself — when it picks exactly the asserted
 * element (or one inside it) and no candidate is that selector already. A lookup by what is
 * asserted finds the element whatever its id or position; a different text fails the lookup
 * (and so the assertion), never passes it.
 */
function assertedText(
  table: ScreenTable,
  node: number,
  literal: string,
  have: readonly Candidate[],
): Candidate | undefined {
  const text = norm(literal);
  if (text === "" || !/[\p{L}\p{N}]/u.test(text)) return undefined;
  const pattern = dynamicPattern(text, true);
  const selector: Selector = pattern !== undefined ? { textRegex: pattern } : { text };
  if (have.some((c) => JSON.stringify(c.selector) === JSON.stringify(selector))) return undefined;
  const m = matchSelector(table, selector, 2);
  const i = m.indices[0];
  if (m.count !== 1 || i === undefined || i < node || i >= table.subtreeEnd(node)) return undefined;
  return pattern !== undefined
    ? {
      selector,
      score: TEXT_SCORE + TEXT_PATTERN_PENALTY,
      family: "textPattern",
      matches: 1,
      valueShape: true,
      assertsOwnText: true,
    }
    : { selector, score: TEXT_SCORE, family: "text", matches: 1, assertsOwnText: true };
}

/**
 * v3, Android: an assertion's own-text fallback ({@linkcode assertedText}) is the recorded text;
 * once the expected text became a template (a slot's or memory value, an expression) it would
 * find the element only with the recorded values, so it leaves the chain. Runs after the slots,
 * generalize and expressions passes.
 *
 * @param draft the draft
 * @returns the draft with those fallbacks left out where the assertion is templated
 */
export function assertedTextPass(draft: Draft): Draft {
  return {
    ...draft,
    steps: draft.steps.map((s) => ({
      ...s,
      actions: s.actions.map((a): DraftAction => {
        if (a.kind !== "assertText" || !a.equals?.includes("{{") || !a.selectors) return a;
        const own = new Set(
          (a.candidates ?? []).filter((c) => c.assertsOwnText).map((c) =>
            JSON.stringify(c.selector)
          ),
        );
        if (own.size === 0) return a;
        const kept = a.selectors.filter((sel) => !own.has(JSON.stringify(sel)));
        if (kept.length === a.selectors.length) return a;
        const out: DraftAction = { ...a, notes: [...a.notes] };
        delete out.selectors;
        if (kept.length === 1) out.selector = kept[0]!;
        else out.selectors = kept;
        out.notes.push(
          `left out the assertion's own text: the expected text ${
            JSON.stringify(a.equals)
          } is a template`,
        );
        return out;
      }),
    })),
  };
}

/**
 * v3: the text candidate of an assertion whose expected value was typed earlier in the trail, when
 * a text lookup of it picks exactly the asserted element (or one inside it). Excluded by default
 * (a read's text is its value), it is the one selector of a typed title that holds across a
 * moved layout; the slots pass writes it with the typed slot's template.
 */
function typedText(
  table: ScreenTable,
  node: number,
  literal: string,
  typed: ReadonlySet<string>,
): Candidate | undefined {
  const text = norm(literal);
  if (text === "" || !typed.has(text)) return undefined;
  const m = matchSelector(table, { text }, 2);
  const i = m.indices[0];
  if (m.count !== 1 || i === undefined || i < node || i >= table.subtreeEnd(node)) return undefined;
  return { selector: { text }, score: WEB_TEXT_SCORE, family: "text", matches: 1 };
}

/**
 * v3: a key press goes to the element that had focus on the screen captured before it (the
 * deepest focused node that is not the page): its candidates, without coordinates (focusing by
 * a click could act). None focused: a page-level key, as recorded.
 */
function focusTarget(
  a: DraftAction,
  draft: Draft,
  mode: SelectorMode,
  ctx: PassContext,
): DraftAction {
  // a recorder's key on the body is a key of the page (resolve.ts says so in its notes)
  if (a.src.screen === undefined || isPageCssPath(a.src.data.target?.selectors?.cssPath)) return a;
  const table = ctx.table(a.src.screen);
  if (!table) return a;
  let focused = -1;
  for (let i = 0; i < table.size; i++) {
    const n = table.node(i);
    if (n.focused && !PAGE_ROLES.has(n.role ?? n.className)) focused = i;
  }
  if (focused < 0) return a;
  const platform = draft.model.platform;
  let candidates = rankSelectors(table, focused, { platform, level: draft.level })
    .filter((c) => c.selector.xy === undefined);
  if (platform === "web") candidates = shapeForMode(candidates, mode, draft.level);
  const n = table.node(focused);
  const what = `${n.role ?? n.className}${n.name ? ` ${JSON.stringify(n.name)}` : ""}`;
  return {
    ...a,
    node: focused,
    candidates,
    notes: [...a.notes, `pressed into the focused ${what}`],
  };
}

const WEB_FAMILY_SCORE: Record<string, number> = {
  testId: WEB_TEST_ID_SCORE,
  id: WEB_ID_SCORE,
  contentDescription: WEB_ARIA_LABEL_SCORE,
  roleName: WEB_ROLE_NAME_SCORE,
};
const STRICT_ORDER: Record<string, number> = {
  testId: WEB_TEST_ID_SCORE,
  id: WEB_TEST_ID_SCORE + 0.5,
  contentDescription: WEB_ARIA_LABEL_SCORE,
  roleName: WEB_ROLE_NAME_SCORE,
};

/**
 * Heuristics v2 on the web, by the step's mode: strict takes an authored test id or id before
 * an aria-label (copy), and a unique role + name (or a recorder's accessible name) when nothing
 * else is exact; flexible replays no coordinates, so they are rejected there. Validation's
 * refinement ranks a v2 trail's candidates through it too.
 *
 * @param candidates ranked candidates ({@linkcode rankSelectors} at level 2)
 * @param mode the step's selector mode
 * @returns the candidates reordered (copies), rejected ones last
 */
export function shapeForMode(
  candidates: Candidate[],
  mode: SelectorMode,
  level = 2,
): Candidate[] {
  const out = candidates.map((c) => ({ ...c }));
  for (const c of out) {
    if (mode === "flexible" && c.family === "xy" && !c.rejected) {
      c.rejected = "coordinates: flexible mode replays none";
    }
    if (mode !== "strict") continue;
    const s = c.selector;
    const plain = s.childOf === undefined && s.index === undefined;
    const order = STRICT_ORDER[c.family];
    // role + name, or a recorder's accessible name alone (`aria/Submit`)
    const roleName = c.family === "roleName" && s.name !== undefined &&
      Object.keys(s).every((k) => k === "role" || k === "name");
    // the page itself ({@linkcode pageCandidates}): its body, one per page
    const page = c.exact === true && s.cssPath === "body" && Object.keys(s).length === 1;
    // v3: an exact property within a parent an exact property names (000 step 4)
    const scoped = level >= 3 && order !== undefined && c.family !== "roleName" &&
      scopedExactSelector(s);
    c.exact = scoped || page || plain && order !== undefined &&
        (roleName || Object.keys(s).length === 1 && c.family !== "roleName");
    if (c.exact) c.score = order! + Math.max(0, c.score - WEB_FAMILY_SCORE[c.family]!) / 10;
  }
  return out.sort((a, b) => (a.rejected ? 1 : 0) - (b.rejected ? 1 : 0) || a.score - b.score);
}

const EXACT_KEYS = new Set(["id", "testId", "contentDescription", "ariaLabel"]);

/**
 * v3, strict: `{ id: x, childOf: { testId: row } }`, an exact property unique within a parent
 * one exact property names (000 step 4: "add parent context").
 *
 * @param sel a selector
 * @returns whether strict mode may take it
 * @example
 * ```ts
 * if (!scopedExactSelector({ id: "title", childOf: { id: "row-3" } })) throw new Error();
 * if (scopedExactSelector({ text: "Add", childOf: { id: "row-3" } })) throw new Error();
 * ```
 */
export function scopedExactSelector(sel: Selector): boolean {
  const keys = Object.keys(sel);
  if (keys.length !== 2 || sel.childOf === undefined) return false;
  if (!keys.some((k) => EXACT_KEYS.has(k))) return false;
  const parent = Object.keys(sel.childOf);
  return parent.length === 1 && EXACT_KEYS.has(parent[0]!);
}

/**
 * Heuristics v2 for a recorder's selectors: `aria/Name` is an accessible name (from an
 * aria-label or from the text), so the aria-label read into it is a guess that fails when the
 * name comes from the text: dropped, the name says the same (strict takes it after a recorded
 * id or test id); a name holding a number becomes a pattern.
 */
function refineRecorded(candidates: Candidate[]): Candidate[] {
  const out = candidates.map((c) => ({ ...c }));
  const names = new Set(
    out.filter((c) => c.family === "roleName" && c.selector.role === undefined)
      .map((c) => c.selector.name),
  );
  for (const c of out) {
    const label = c.selector.ariaLabel;
    if (label === undefined || !names.has(label)) continue;
    c.rejected = "an accessible name, not a recorded aria-label (the name is kept)";
  }
  const patterns: Candidate[] = [];
  const dynamic: Candidate[] = [];
  for (const c of out) {
    const copy = copyOf(c.selector);
    const p = copy === undefined || c.family === "cssPath" ? undefined : dynamicPattern(copy);
    if (p === undefined || c.rejected) continue;
    dynamic.push(c);
    if (!patterns.some((x) => x.selector.textRegex === p)) {
      patterns.push({
        selector: { textRegex: p },
        score: WEB_TEXT_SCORE + TEXT_PATTERN_PENALTY,
        family: "textPattern",
        matches: 1,
      });
    }
  }
  for (const c of dynamic) {
    c.rejected = `dynamic: holds a number that changes (pattern ${
      JSON.stringify(patterns[0]!.selector.textRegex)
    })`;
  }
  return [...out, ...patterns].sort((a, b) =>
    (a.rejected ? 1 : 0) - (b.rejected ? 1 : 0) || a.score - b.score
  );
}
