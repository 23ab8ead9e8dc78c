/**
 * The resolve pass: each action's point → the node it hit on the screen captured before the
 * action (the WASM hit test). Taps climb from a non-clickable hit (a label inside a button) to
 * the nearest clickable ancestor that contains the point. Reads and assertions without a point
 * resolve by their value on the screen; a selector-less inputText keeps the focused field for
 * naming. A point that hits nothing keeps `xy` and is flagged; a runtime selector that picks a
 * different node than the point hit is reported and replaced. Under heuristics v2 a read or an
 * assertion whose point hit a node inside the element the agent named keeps that element, and
 * Android actions then go through `androidTarget` (an accessible ancestor for a tap, the editable
 * field for typing, the scrollable container for a scroll or swipe), and iOS taps and typing
 * through `iosTarget` (the interactive node drawn on top at the point). Under v2 a Chrome
 * Recorder step is read by `readRecorderStep` (a double click, an action the player cannot do as
 * recorded, a step that changes nothing a trail replays), and a human recording's action whose
 * screen before is not the page at it (`screenBefore`: `earlier`, `none`) by `recorderTarget`
 * (the recorder's own target over the hit test).
 *
 * @module
 */
import type { ScreenTable } from "../screens/mod.ts";
import type { TrailActionKind } from "../trail/mod.ts";
import type { Draft, DraftAction, DraftStep, PassContext } from "./draft.ts";
import { androidTarget } from "./android_target.ts";
import { iosTarget } from "./ios_target.ts";
import { matchSelector } from "./selector_match.ts";
import { readRecorderStep } from "./recorder_steps.ts";
import { recorderTarget, staleScreen } from "./recorder_target.ts";
import { isPageCssPath } from "../playback/mod.ts";

const CLIMB_KINDS = new Set<TrailActionKind>(["tap", "doubleTap", "longPress", "check"]);
const MAX_CLIMB = 3; // a clickable ancestor further up is a container, not the control

const KIND_OF: Record<string, TrailActionKind | undefined> = {
  tap: "tap",
  inputText: "inputText",
  swipe: "swipe",
  scroll: "scroll",
  navigate: "navigate",
  keyPress: "keyPress",
  select: "select",
  check: "check",
  readText: "readText",
  assertVisible: "assertVisible",
  assertText: "assertText",
  memorySet: "memorySet",
  memoryGet: undefined,
  back: "back",
  wait: "wait",
  reload: "reload",
  switchTab: "switchTab",
};

const VALUE_KINDS = new Set<TrailActionKind>(["readText", "assertText", "assertVisible"]);
const MAX_HOLDER_CLIMB = 2;
const ASSERT_KINDS = new Set<TrailActionKind>(["assertText", "assertVisible"]);
const MAX_CARRIER_CLIMB = 4; // a labelled control's frame, not the screen's panes
const MIN_HELD_LENGTH = 3; // a shorter value ("1", "OK") inside a description is a coincidence

/** Text as the player compares it: runs of white space as one space, trimmed. */
function squash(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/**
 * v2, Android: an assertion's element is the node that carries the expected value, as its text
 * or its content description: the point often hits an image inside the frame TalkBack reads
 * ("Signed in as …" on Gmail's account disc, not on the avatar in it). Keeps the node when it
 * carries the value, else takes the nearest ancestor that does; marks a value only the
 * description carries (`describedValue`).
 */
function valueCarrier(
  a: DraftAction,
  table: ScreenTable,
  node: number,
  level: number,
): number {
  const want = squash(a.literal!);
  const chain = [node, ...table.ancestors(node).slice(0, MAX_CARRIER_CLIMB)];
  for (const i of chain) {
    const n = table.node(i);
    if (n.text !== undefined && squash(n.text) === want) return i;
    if (n.contentDescription === undefined || squash(n.contentDescription) !== want) continue;
    a.describedValue = true;
    if (i !== node) {
      a.notes.push(
        `assertion target: the ${nodeName(table, i)} whose content description is the expected ` +
          `value, not the node the point hit inside it`,
      );
    }
    return i;
  }
  const hit = table.node(node);
  if (want === "" || (hit.text !== undefined && squash(hit.text) !== "")) return node;
  // v3: the point hit a frame around the label (a tab's button): the one node inside it that
  // shows the value is the label, not a pane further up whose description merely mentions it
  const inside: number[] = [];
  for (let i = node + 1; level >= 3 && i < table.subtreeEnd(node) && inside.length < 2; i++) {
    const t = table.node(i).text;
    if (t !== undefined && squash(t) === want) inside.push(i);
  }
  if (inside.length === 1) {
    a.notes.push(
      `assertion target: the ${nodeName(table, inside[0]!)} inside the ${
        nodeName(table, node)
      } the point hit, whose text is the expected value`,
    );
    return inside[0]!;
  }
  // The point hit a node that shows no text (Gmail's avatar image): the player's assertText
  // would read "" there. A frame whose description holds the value (the account disc's
  // "Signed in as Test QA <email>\nAccount and settings.") is checked by that description.
  const reason = `the ${nodeName(table, node)} the point hit shows no text (the player's ` +
    `assertText reads a node's text, not its content description)`;
  if (want.length >= MIN_HELD_LENGTH) {
    for (const i of chain) {
      const d = table.node(i).contentDescription;
      // v3: the value as a whole phrase of the description; v2: anywhere in it
      if (d === undefined) continue;
      if (level >= 3 ? !holdsWhole(squash(d), want) : !squash(d).includes(want)) continue;
      a.describedValue = true;
      a.notes.push(
        `assertion target: the ${nodeName(table, i)} whose content description holds the ` +
          `expected value: ${reason}`,
      );
      return i;
    }
  }
  a.showsNoText = true;
  a.notes.push(`presence check: ${reason}, and no frame around it describes the value`);
  return node;
}

/**
 * v3, iOS and the web: an assertion whose point hit a frame around the label (a cell, a region)
 * checks the one element inside it that shows the expected value (its text, or its accessible
 * name: a button, a link), not the frame, whose label merely contains the value
 * ("Secure Area-page" around "Secure Area"). Keeps the node when it shows the value itself, or
 * when no single element inside it does.
 */
function labelInside(a: DraftAction, table: ScreenTable, node: number): number {
  const want = squash(a.literal!);
  if (want === "") return node;
  const shows = (i: number) => {
    const n = table.node(i);
    return [n.text, n.name, n.contentDescription].some((t) =>
      t !== undefined && squash(t) === want
    );
  };
  if (shows(node)) return node;
  const inside: number[] = [];
  for (let i = node + 1; i < table.subtreeEnd(node) && inside.length < 2; i++) {
    if (!shows(i)) continue;
    inside.push(i);
    i = table.subtreeEnd(i) - 1; // the outermost: a button, not the text node inside it
  }
  if (inside.length !== 1) return node;
  // a web text node's holder is the node itself when it holds nothing else (a span's text)
  const label = climbToHolder(table, inside[0]!, 3);
  if (label <= node || label >= table.subtreeEnd(node)) return node;
  a.notes.push(
    `assertion target: the ${nodeName(table, label)} inside the ${
      nodeName(table, node)
    } the point hit, which shows the expected value`,
  );
  return label;
}

/**
 * Whether a description holds a value as a whole phrase: between spaces, quotes, brackets or
 * sentence punctuation, not inside a word or an identifier (`Login` is not in `Login-screen`).
 */
function holdsWhole(description: string, value: string): boolean {
  for (let at = description.indexOf(value); at >= 0; at = description.indexOf(value, at + 1)) {
    const before = description[at - 1] ?? " ";
    const after = description[at + value.length] ?? " ";
    if (/[\s("'“‘[<:,]/.test(before) && /[\s)"'”’\]>.,;:!?]/.test(after)) return true;
  }
  return false;
}

/** A node as an explain line names it: its class and resource id. */
function nodeName(table: ScreenTable, i: number): string {
  const n = table.node(i);
  return `${n.className}${n.resourceId ? ` ${JSON.stringify(n.resourceId)}` : ""}`;
}

/**
 * A value shown in an anonymous text node (a web `StaticText`, an unnamed label) is identified
 * by the element that holds it alone: climb while the node has no identity of its own and is
 * its parent's only child.
 */
function climbToHolder(table: ScreenTable, i: number, level: number): number {
  for (let k = 0; k < MAX_HOLDER_CLIMB; k++) {
    const n = table.node(i);
    if (n.resourceId || n.testId || n.contentDescription) return i;
    // v3: a control (a button, a link) is what shows its text; the frame around it holds the
    // control, not the text (a region labelled "Far below the fold" around "Far below")
    if (level >= 3 && n.clickable) return i;
    const p = table.parent(i);
    if (p < 0 || table.node(p).children.length !== 1) return i;
    i = p;
  }
  return i;
}

/**
 * Builds the draft's steps from the capture model and resolves every action's node.
 *
 * @param draft a draft with the model and no steps yet
 * @param ctx screen tables
 * @param then what to do next with each action once resolved (the optimizer ranks its selectors
 *   there, while its screen is at hand), given its step's index
 * @returns the draft with one step per NL step and resolved actions
 */
export function resolvePass(
  draft: Draft,
  ctx: PassContext,
  then?: (a: DraftAction, step: number) => DraftAction,
): Draft {
  const steps: DraftStep[] = draft.model.steps.map((text) => ({ text, actions: [] }));
  const android = draft.level >= 2 && draft.model.platform === "android";
  const ios = draft.level >= 2 && draft.model.platform === "ios";
  const recorder = draft.level >= 2 && draft.model.platform === "web";
  const warnings = [...draft.warnings];
  for (const src of draft.model.actions) {
    const kind = KIND_OF[src.data.kind];
    const a: DraftAction = { src, kind: kind ?? "wait", notes: [] };
    if (kind === undefined) a.drop = `${src.data.kind} reads memory only (recorded as {{name}})`;
    if (recorder) {
      const r = readRecorderStep(src.data);
      if (r.kind !== undefined) a.kind = r.kind;
      if (r.drop !== undefined) a.drop = r.drop;
      if (r.unplayable !== undefined) a.unplayable = r.unplayable;
      if (r.agentStep !== undefined) a.agentStep = r.agentStep;
      if (r.warning !== undefined) {
        warnings.push(
          `Step ${src.step + 1} "${draft.model.steps[src.step]}", action ${
            src.seq + 1
          }: ${r.warning}`,
        );
      }
    }
    copyFields(a);
    const warning = resolveNode(a, ctx, draft.level, android, ios, recorder);
    if (warning !== undefined) {
      warnings.push(
        `Step ${src.step + 1} "${draft.model.steps[src.step]}", action ${src.seq + 1}: ${warning}`,
      );
    }
    steps[src.step]!.actions.push(then ? then(a, src.step) : a);
  }
  return { ...draft, steps, warnings };
}

function copyFields(a: DraftAction): void {
  const d = a.src.data;
  if (d.text !== undefined) a.text = d.text;
  if (d.url !== undefined) a.url = d.url;
  if (d.key !== undefined) a.key = d.key;
  if (d.direction !== undefined) a.direction = d.direction;
  if (d.checked !== undefined) a.checked = d.checked;
  if (d.storeAs !== undefined) a.storeAs = d.storeAs;
  if (a.kind === "select" || a.kind === "memorySet") {
    const v = d.value ?? a.src.value;
    if (v !== undefined) a.value = v;
  }
  if (a.kind === "readText") {
    const v = a.src.value ?? d.value;
    if (v !== undefined) a.literal = v;
  }
  if (a.kind === "assertText" || a.kind === "assertVisible") {
    const v = d.expected ?? d.text ?? d.target?.selector?.text;
    if (v !== undefined) a.literal = v;
  }
  if (a.kind === "assertText" && a.literal !== undefined) a.equals = a.literal;
}

/** The node an action's recorded target names (AX node id, else a unique role + name). */
function byTarget(a: DraftAction, table: ScreenTable): number | undefined {
  const t = a.src.data.target;
  if (!t) return undefined;
  if (t.axNodeId !== undefined) {
    for (let i = 0; i < table.size; i++) {
      if (table.node(i).attrs?.axNodeId === t.axNodeId) return i;
    }
  }
  if (t.name !== undefined) {
    const m = table.matches({ ...(t.role !== undefined ? { role: t.role } : {}), name: t.name }, 2);
    if (m.count === 1) return m.indices[0]!;
  }
  return undefined;
}

/**
 * v2: an assertion or read keeps the element the agent named (its recorded role and name) when
 * the point hit a node inside it: the agent checked the button "Checkout (2 items) $37.50",
 * not the "2 items" span under the point. On the web any blaze action does: the agent scrolled
 * the container "Scroller", not the "inner" block under its center.
 */
function keepTarget(a: DraftAction, table: ScreenTable, hit: number): number {
  const t = byTarget(a, table);
  if (t === undefined || t === hit || hit < t || hit >= table.subtreeEnd(t)) return hit;
  const n = a.src.data.target!;
  a.notes.push(
    `kept the recorded target ${n.role ?? ""} ${
      JSON.stringify(n.name ?? "")
    }: the point hit a node inside it`,
  );
  return t;
}

function resolveNode(
  a: DraftAction,
  ctx: PassContext,
  level: number,
  android: boolean,
  ios: boolean,
  web2: boolean,
): string | undefined {
  const d = a.src.data;
  if (level >= 3 && a.kind === "keyPress" && isPageCssPath(d.target?.selectors?.cssPath)) {
    // a key with nothing focused (a recorder's target on the body, its point the page's middle):
    // a key of the page, never one of the element that happens to be there
    a.notes.push("a key of the page (nothing was focused): no target");
    return undefined;
  }
  const hash = a.src.screen;
  const table = hash === undefined ? undefined : ctx.table(hash);
  if (d.point) a.point = { x: d.point.x, y: d.point.y };
  if (!table) {
    if (d.point) a.notes.push(`no screen captured before the action: keeping xy`);
    return undefined;
  }
  let warning: string | undefined;
  const stale = web2 && d.source === "human" && d.point ? staleScreen(d) : undefined;
  if (stale !== undefined) {
    // v2: the screen is not the page at the action: the recorder's own target decides
    let hit = table.hitTest(d.point!);
    if (hit >= 0 && CLIMB_KINDS.has(a.kind) && !table.node(hit).clickable) {
      const up = table.ancestors(hit).slice(0, MAX_CLIMB).find((i) => table.node(i).clickable);
      if (up !== undefined) hit = up;
    }
    const r = recorderTarget(table, hit, stale, d.target?.selectors);
    a.notes.push(r.note);
    warning = r.warning;
    if (r.node !== undefined) a.node = r.node;
    else a.recorderTarget = stale;
  } else if (d.point) {
    let hit = table.hitTest(d.point);
    if (hit < 0) {
      a.notes.push(
        `flagged: no node contains (${Math.round(d.point.x)}, ${
          Math.round(d.point.y)
        }): keeping xy`,
      );
    } else {
      // v2, web: any action of a blaze session keeps the element the agent named when the
      // point hit a node inside it (the scroll container "Scroller", not the "inner" block
      // under its center), before a climb to a clickable ancestor (a document listener makes
      // the page's root one) can take it elsewhere
      const named = web2 && d.source !== "human" && !VALUE_KINDS.has(a.kind);
      const kept = named ? keepTarget(a, table, hit) : hit;
      if (kept !== hit) hit = kept;
      else if (CLIMB_KINDS.has(a.kind) && !table.node(hit).clickable) {
        const up = table.ancestors(hit).slice(0, MAX_CLIMB).find((i) => table.node(i).clickable);
        if (up !== undefined) hit = up;
      }
      // v2: a read or an assertion keeps the element the agent named
      if (level >= 2 && VALUE_KINDS.has(a.kind)) hit = keepTarget(a, table, hit);
      if (android) {
        const t = androidTarget(table, hit, d.point, a.kind);
        if (t.note !== undefined) a.notes.push(t.note);
        if (t.node !== undefined) a.node = t.node;
      } else if (ios) {
        const t = iosTarget(table, hit, d.point, a.kind);
        if (t.note !== undefined) a.notes.push(t.note);
        a.node = t.node ?? hit;
      } else a.node = hit;
    }
  } else if (byTarget(a, table) !== undefined) {
    a.node = byTarget(a, table)!;
    const t = d.target!;
    a.notes.push(
      `resolved by the target the agent saw (${
        t.axNodeId !== undefined ? `AX node ${t.axNodeId}` : `${t.role ?? ""} "${t.name ?? ""}"`
      })`,
    );
  } else if (a.kind === "inputText") {
    const focused = table.matches({ flags: { focused: true } }, 2);
    if (focused.count === 1) a.fieldNode = focused.indices[0]!;
  } else if (a.literal !== undefined) {
    const byText = table.matches({ text: a.literal }, 2);
    const byDesc = byText.count === 0
      ? table.matches({ contentDescription: a.literal }, 2)
      : byText;
    if (byDesc.count === 1) a.node = byDesc.indices[0]!;
    else {
      a.notes.push(
        `flagged: ${JSON.stringify(a.literal)} is on ${byDesc.count} nodes: no node resolved`,
      );
    }
  }
  if (a.node !== undefined && VALUE_KINDS.has(a.kind)) {
    a.node = climbToHolder(table, a.node, level);
  }
  if (
    level >= 3 && (ios || web2) && a.node !== undefined && ASSERT_KINDS.has(a.kind) &&
    a.literal !== undefined
  ) a.node = labelInside(a, table, a.node);
  if (android && a.node !== undefined && ASSERT_KINDS.has(a.kind) && a.literal !== undefined) {
    a.node = valueCarrier(a, table, a.node, level);
  }
  const runtime = d.target?.selector;
  if (runtime && Object.keys(runtime).length > 0) {
    const sel = {
      ...(runtime.id ? { id: runtime.id } : {}),
      ...(runtime.text ? { text: runtime.text } : {}),
      ...(runtime.contentDescription ? { contentDescription: runtime.contentDescription } : {}),
      ...(runtime.testId ? { testId: runtime.testId } : {}),
    };
    const desc = JSON.stringify(runtime);
    if (Object.keys(sel).length === 0) {
      a.notes.push(`runtime selector ${desc} ignored: not a node property`);
    } else {
      const m = matchSelector(table, sel, 2);
      if (a.node === undefined && m.count === 1) {
        a.node = m.indices[0]!;
        a.notes.push(`resolved by the runtime selector ${desc} (no point captured)`);
      } else if (a.node !== undefined) {
        if (m.count !== 1) {
          a.notes.push(`runtime selector ${desc} matches ${m.count} nodes: replaced`);
        } else if (
          m.indices[0]! < a.node || m.indices[0]! >= table.subtreeEnd(a.node)
        ) {
          const other = table.node(m.indices[0]!);
          a.notes.push(
            `runtime selector ${desc} resolves to a different node (${other.className}${
              other.text ? ` "${other.text}"` : ""
            }) than the point hit: replaced`,
          );
        }
      }
    }
  }
  return warning;
}
