/**
 * Comparison of one replayed action with its capture (see docs/validation.md): did the selector
 * resolve to the same element, did the assertion give the same result, was the memory slot
 * populated, was no coordinate fallback needed, and did the action not lead to an error page.
 *
 * The same element: the node the replay acted on agrees with the captured node on its role and
 * accessible name (or its text, when the text is an identity and not a value read) and its size
 * agrees within {@linkcode BOUNDS_TOLERANCE_PX}. A change of position alone (a banner above it,
 * a shuffled list) is evidence, not a failure: the element moved, it is still the same one. So is
 * a change of size on an element its role, name and text single out on both screens, or that the
 * texts of its row pick among identical ones (a restyle, another viewport); otherwise, among
 * alike elements, the size still tells them apart.
 *
 * @module
 */
import type { Bounds, Screen, UiNode } from "../screens/mod.ts";
import { walk } from "../screens/mod.ts";
import { ScreenTable } from "../screens/mod.ts";
import { elementText, findAnchors, matchWeb, norm } from "../optimizer/mod.ts";

/** Bounds that differ by at most this many pixels per side count as equal. */
export const BOUNDS_TOLERANCE_PX = 2;

/** What the capture knows of one action. */
export interface CapturedAction {
  /** Trail action kind (`tap`, `inputText`, `readText`, `assertText`, …). */
  kind: string;
  /** The screen the capture acted on and the node it acted on, when known. */
  screen?: Screen;
  node?: UiNode;
  /** Whether the captured action succeeded (assertions: their result). */
  ok?: boolean;
  /** Value read during the capture (readText). */
  value?: string;
  /** Memory key the value is stored under. */
  storeAs?: string;
}

/** What the replay did for the same action (PlaybackActionResolved / Completed, plus its screen). */
export interface ReplayedAction {
  status: "ok" | "failed" | "healed" | "skipped";
  errorCode?: string;
  error?: string;
  /** Cascade level that found the element (`coordinates` is the XY fallback). */
  strategy?: string;
  selector?: string;
  /** The primary selector failed and a later level found the element. */
  healed?: boolean;
  bounds?: Bounds;
  /** Value read (readText) or the text asserted on. */
  value?: string;
  /** The screen the replay resolved against (taken just before the action). */
  screen?: Screen;
  /**
   * The action led to an error page: the new document answered with an HTTP error status, or
   * did not load (the browser's error page) — `http://…/next answered HTTP 500`.
   */
  pageError?: string;
}

/** The verdict on one action. */
export interface ActionVerdict {
  passed: boolean;
  /**
   * The failure is about the element (not found, healed, coordinates, a different or disabled
   * element): refinement may fix it. False when the right element gave a different outcome.
   */
  elementFailure: boolean;
  /** Why, in one line each: what agreed, what differed. */
  evidence: string[];
  /** The replay's node for the captured one, when it could be identified on the replay screen. */
  replayNode?: UiNode;
  /**
   * The replay acted on a clearly different element: its role, name or text is not the
   * captured one's (not merely its size or row). That is the step's own selector at fault,
   * whatever state an earlier step left the page in.
   */
  otherElement?: boolean;
}

const ELEMENT_KINDS = new Set([
  "tap",
  "doubleTap",
  "longPress",
  "inputText",
  "select",
  "check",
  "readText",
  "assertText",
  "assertVisible",
  "scroll",
]);
const VALUE_KINDS = new Set(["readText", "assertText"]);
/** Error codes that are about the outcome on the right element, not about finding it. */
const OUTCOME_CODES = new Set(["assertion_failed", "page_error", "timeout", "url_mismatch"]);

/**
 * Whether two bounds agree in size within {@linkcode BOUNDS_TOLERANCE_PX}.
 *
 * @param a bounds in one run
 * @param b bounds in the other
 * @returns true when width and height agree
 * @example
 * ```ts
 * if (!sameSize({ x: 0, y: 0, w: 80, h: 20 }, { x: 5, y: 90, w: 81, h: 20 })) throw new Error();
 * ```
 */
export function sameSize(a: Bounds, b: Bounds): boolean {
  return Math.abs(a.w - b.w) <= BOUNDS_TOLERANCE_PX && Math.abs(a.h - b.h) <= BOUNDS_TOLERANCE_PX;
}

/**
 * Whether two bounds agree in position and size within {@linkcode BOUNDS_TOLERANCE_PX}.
 *
 * @param a bounds in one run
 * @param b bounds in the other
 * @returns true when every side agrees
 */
export function sameBounds(a: Bounds, b: Bounds): boolean {
  return sameSize(a, b) && Math.abs(a.x - b.x) <= BOUNDS_TOLERANCE_PX &&
    Math.abs(a.y - b.y) <= BOUNDS_TOLERANCE_PX;
}

/**
 * The identity properties of two nodes that differ (role, name, text unless it is a value,
 * aria-label, size). Ids and test ids are not identity: a regenerated id is the same element.
 *
 * @param captured the captured node
 * @param replayed the replay's node
 * @param options `valueText`: the text is the value read or asserted, not an identity
 * @returns the names of the differing properties with both values, empty when they agree
 * @example
 * ```ts
 * import { makeNode } from "../screens/ui_node.ts";
 * const a = makeNode({ className: "button", role: "button", name: "Add", bounds: { x: 0, y: 0, w: 40, h: 20 } });
 * const b = makeNode({ className: "button", role: "button", name: "Add", bounds: { x: 0, y: 60, w: 40, h: 20 } });
 * if (identityDiff(a, b).length !== 0) throw new Error();
 * ```
 */
export function identityDiff(
  captured: UiNode,
  replayed: UiNode,
  options: { valueText?: boolean } = {},
): string[] {
  const out: string[] = [];
  const cmp = (label: string, a: string | undefined, b: string | undefined) => {
    if ((a ?? "") !== (b ?? "")) {
      out.push(`${label} ${JSON.stringify(a ?? "")} → ${JSON.stringify(b ?? "")}`);
    }
  };
  cmp("role", captured.role ?? captured.className, replayed.role ?? replayed.className);
  if (!options.valueText) {
    cmp("name", captured.name, replayed.name);
    cmp("text", captured.text, replayed.text);
  }
  cmp("aria-label", captured.contentDescription, replayed.contentDescription);
  if (!sameSize(captured.bounds, replayed.bounds)) {
    const a = captured.bounds;
    const b = replayed.bounds;
    out.push(`size ${a.w}×${a.h} → ${b.w}×${b.h}`);
  }
  return out;
}

/**
 * The node of a screen whose bounds are `bounds` (within the tolerance). Several nodes may
 * share a box (a status element and its text run): the one with the role of `like` wins, else
 * the deepest that carries a name or id, else the deepest.
 *
 * @param screen the screen
 * @param bounds the bounds an element was found at
 * @param like the captured node, whose role is preferred
 * @returns the node, or undefined when none has those bounds
 */
export function nodeAtBounds(screen: Screen, bounds: Bounds, like?: UiNode): UiNode | undefined {
  let best: UiNode | undefined;
  let named: UiNode | undefined;
  let sameRole: UiNode | undefined;
  const role = like ? like.role ?? like.className : undefined;
  for (const [n] of walk(screen.root)) {
    if (!sameBounds(n.bounds, bounds)) continue;
    best = n;
    if (n.name || n.testId || n.resourceId || n.contentDescription) named = n;
    if (role !== undefined && (n.role ?? n.className) === role) sameRole = n;
  }
  return sameRole ?? named ?? best;
}

function moved(a: Bounds, b: Bounds): string | undefined {
  const dx = Math.round(b.x - a.x);
  const dy = Math.round(b.y - a.y);
  if (Math.abs(dx) <= BOUNDS_TOLERANCE_PX && Math.abs(dy) <= BOUNDS_TOLERANCE_PX) return undefined;
  return `moved by (${dx}, ${dy}) with the layout`;
}

/**
 * Compares one replayed action with its capture.
 *
 * @param captured what the capture recorded for the action
 * @param replayed what the replay did
 * @returns passed, with the evidence either way
 * @example
 * ```ts
 * const v = compareAction({ kind: "tap" }, { status: "ok", strategy: "coordinates" });
 * if (v.passed) throw new Error("a coordinate fallback never passes");
 * ```
 */
export function compareAction(captured: CapturedAction, replayed: ReplayedAction): ActionVerdict {
  const evidence: string[] = [];
  let passed = true;
  let elementFailure = false;
  const fail = (line: string, element = true) => {
    passed = false;
    elementFailure ||= element;
    evidence.push(line);
  };
  if (replayed.status === "skipped") {
    fail(`skipped: ${replayed.error ?? replayed.errorCode ?? "not replayed"}`, false);
    return { passed, evidence, elementFailure };
  }
  const isAssert = captured.kind === "assertText" || captured.kind === "assertVisible";
  if (replayed.status === "failed") {
    const why = `${replayed.errorCode ?? "failed"}: ${replayed.error ?? ""}`.trim();
    if (isAssert && captured.ok === false && replayed.errorCode === "assertion_failed") {
      evidence.push(`assertion failed in both runs (${why})`);
    } else fail(why, !OUTCOME_CODES.has(replayed.errorCode ?? ""));
  } else if (isAssert && captured.ok === false) {
    fail("assertion passed on replay but failed in the capture", false);
  }
  if (replayed.strategy === "coordinates") {
    fail(`coordinate fallback was needed (${replayed.selector ?? "xy"})`);
  } else if (replayed.healed) {
    fail(
      `primary selector missed; healed with ${replayed.strategy} ${replayed.selector ?? ""}`.trim(),
    );
  } else if (replayed.strategy && replayed.strategy !== "none") {
    evidence.push(`resolved with ${replayed.strategy} ${replayed.selector ?? ""}`.trim());
  }
  let replayNode: UiNode | undefined;
  let otherElement = false;
  if (ELEMENT_KINDS.has(captured.kind) && replayed.bounds && replayed.screen) {
    replayNode = nodeAtBounds(replayed.screen, replayed.bounds, captured.node);
  }
  if (captured.node && replayNode && replayed.strategy !== "coordinates") {
    const valueText = VALUE_KINDS.has(captured.kind);
    let diff = identityDiff(captured.node, replayNode, { valueText });
    // A size change alone, on an element its role, name and text single out on both screens
    // (or, among identical ones, in the row the capture's was in), is a restyle (another layout,
    // another viewport), not another element.
    const resized = diff.length === 1 && diff[0]!.startsWith("size ") && captured.screen &&
        replayed.screen && (
          (singledOut(captured.screen, captured.node, valueText) &&
            singledOut(replayed.screen, replayNode, valueText)) ||
          rowVerdict(captured.screen, captured.node, replayed.screen, replayNode, {
              valueText,
            }) === "same"
        )
      ? diff[0]!
      : undefined;
    if (resized) diff = [];
    const row = diff.length === 0 && captured.screen && replayed.screen
      ? rowDiff(captured.screen, captured.node, replayed.screen, replayNode, {
        valueText: VALUE_KINDS.has(captured.kind),
      })
      : undefined;
    otherElement = diff.some((d) => /^(?:role|name|text) /.test(d));
    if (diff.length > 0) fail(`a different element: ${diff.join(", ")}`);
    else if (row !== undefined) fail(row);
    else if (resized) {
      evidence.push(`same element (role and name agree; ${resized} with the layout)`);
    } else {
      evidence.push("same element (role, name and size agree)");
      const m = moved(captured.node.bounds, replayNode.bounds);
      if (m) evidence.push(m);
    }
    if (captured.node.enabled && !replayNode.enabled) fail("the element is disabled in the replay");
  }
  if (replayed.pageError !== undefined) {
    // The right element may have been clicked, but what it led to is not the recorded page: the
    // steps after it would be compared on an error page. Not the element's fault: not refined.
    fail(`led to an error page: ${replayed.pageError}`, false);
  }
  if (captured.kind === "readText" && captured.storeAs) {
    const v = replayed.value;
    if (v === undefined || v.trim() === "") {
      fail(`memory slot ${captured.storeAs} was not populated`, replayed.status === "failed");
    } else if (captured.value !== undefined && v !== captured.value) {
      evidence.push(
        `memory slot ${captured.storeAs} = ${JSON.stringify(v)} (capture: ${
          JSON.stringify(captured.value)
        })`,
      );
    } else evidence.push(`memory slot ${captured.storeAs} = ${JSON.stringify(v)}`);
  }
  return {
    passed,
    evidence,
    elementFailure,
    ...(replayNode ? { replayNode } : {}),
    ...(otherElement ? { otherElement } : {}),
  };
}

/** Screen tables of the screens compared, shared across actions and iterations. */
const TABLES = new WeakMap<Screen, ScreenTable>();

function tableOf(screen: Screen): ScreenTable {
  let t = TABLES.get(screen);
  if (!t) TABLES.set(screen, t = ScreenTable.from(screen));
  return t;
}

/**
 * Whether a node is the only one of its screen with its role, name, text (unless it is a value)
 * and aria-label, whatever their sizes: one that a size change cannot confuse with another.
 * A node with neither name, text nor aria-label is never singled out (a bare container).
 *
 * @param screen the screen
 * @param node a node of it
 * @param valueText the text is a value read, not an identity
 * @returns true when no other node agrees with it on those
 */
export function singledOut(screen: Screen, node: UiNode, valueText: boolean): boolean {
  const table = tableOf(screen);
  const i = table.indexOf(node);
  return i >= 0 && singledOutAt(table, i, valueText);
}

/**
 * {@linkcode singledOut} for node `i` of a screen table.
 *
 * @param table the screen
 * @param i the node
 * @param valueText the text is a value read, not an identity
 * @returns true when no other node agrees with it on role, name, text and aria-label
 */
export function singledOutAt(table: ScreenTable, i: number, valueText: boolean): boolean {
  const node = table.node(i);
  const named = node.name || node.contentDescription || (!valueText && node.text);
  if (!named) return false;
  const kind = node.role ?? node.className;
  for (let k = 0; k < table.size; k++) {
    if (k === i) continue;
    const other = table.node(k);
    if ((other.role ?? other.className) !== kind) continue;
    const diff = identityDiff(node, other, { valueText }).filter((d) => !d.startsWith("size "));
    if (diff.length === 0) return false;
  }
  return true;
}

/**
 * How many other nodes of a screen the identity check cannot tell from node `i` (same role,
 * name, text, aria-label and size: an "Add" in every row).
 *
 * @param table the screen
 * @param i the node
 * @param valueText the text is a value read, not an identity
 * @returns the count of such twins
 */
export function identicalTwins(table: ScreenTable, i: number, valueText: boolean): number {
  const node = table.node(i);
  let n = 0;
  for (let k = 0; k < table.size; k++) {
    if (k === i) continue;
    const other = table.node(k);
    if ((other.role ?? other.className) !== (node.role ?? node.className)) continue;
    if (identityDiff(node, other, { valueText }).length === 0) n++;
  }
  return n;
}

/**
 * On the web, when the element is one of several identical ones (an "Add" in every row) on
 * either screen: whether the replay acted on the one in the captured element's row. The row is
 * named as the optimizer anchors it (`childOf: { text }`, the texts of the row the element sits
 * in); the replayed element must be the one those texts pick on the replay screen.
 *
 * @param capScreen the captured screen
 * @param capNode the captured element
 * @param repScreen the replay's screen
 * @param repNode the element the replay acted on
 * @param options `valueText`: the text is the value read or asserted, not an identity
 * @returns why the rows differ, or undefined when they agree or no row tells them apart
 */
export function rowDiff(
  capScreen: Screen,
  capNode: UiNode,
  repScreen: Screen,
  repNode: UiNode,
  options: { valueText?: boolean } = {},
): string | undefined {
  const v = rowVerdict(capScreen, capNode, repScreen, repNode, options);
  return v === "same" ? undefined : v;
}

/**
 * {@linkcode rowDiff}, telling "the same row" (`"same"`: the anchors of the captured element's
 * row pick the replayed one) from "no row tells them apart" (undefined).
 */
function rowVerdict(
  capScreen: Screen,
  capNode: UiNode,
  repScreen: Screen,
  repNode: UiNode,
  options: { valueText?: boolean } = {},
): string | undefined {
  if (capScreen.platform !== "web" || repScreen.platform !== "web") return undefined;
  const cap = tableOf(capScreen);
  const rep = tableOf(repScreen);
  const ci = cap.indexOf(capNode);
  const ri = rep.indexOf(repNode);
  if (ci < 0 || ri < 0) return undefined;
  const valueText = options.valueText ?? false;
  if (identicalTwins(cap, ci, valueText) === 0 && identicalTwins(rep, ri, valueText) === 0) {
    return undefined;
  }
  // What picks every one of them, as the cascade looks it up: role + name, else the text.
  const role = capNode.role ?? capNode.className;
  const shown = valueText ? "" : capNode.text ?? elementText(cap, ci);
  const base = capNode.name && role
    ? { role, name: capNode.name }
    : shown
    ? { text: norm(shown) }
    : undefined;
  if (!base) return undefined;
  const exclude = [capNode.text, capNode.name, shown].filter((t): t is string => !!t);
  const found = findAnchors(cap, ci, base, exclude);
  if (!found || found.anchors.length === 0) return undefined;
  const m = matchWeb(rep, base, found.anchors);
  const same = found.index !== undefined ? m.indices[found.index] === ri : m.indices.includes(ri);
  if (same) return "same";
  const name = (anchors: readonly string[]) => anchors.map((t) => JSON.stringify(t)).join(" / ");
  const theirs = findAnchors(rep, ri, base, exclude);
  return `a different row: the capture's element is in the row showing ${
    name(found.anchors)
  }, the replay's in ${
    theirs && theirs.anchors.length > 0 ? `the row showing ${name(theirs.anchors)}` : "another row"
  } (role, name and size agree)`;
}
