/**
 * Comparison of one replayed action with its capture (000 "Validation Loop"): did the selector
 * resolve to the same element, did the assertion give the same result, was the memory slot
 * populated, was no coordinate fallback needed, and did the action not lead to an error page.
 *
 * The same element: the node the replay acted on agrees with the captured node on its role and
 * accessible name (or its text, when the text is an identity and not a value read) and its size
 * agrees within {@linkcode BOUNDS_TOLERANCE_PX}. A change of position alone (a banner above it,
 * a shuffled list) is evidence, not a failure: the element moved, it is still the same one.
 *
 * @module
 */
import type { Bounds, Screen, UiNode } from "../ui_node.ts";
import { walk } from "../ui_node.ts";

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
 * import { makeNode } from "../ui_node.ts";
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
  if (ELEMENT_KINDS.has(captured.kind) && replayed.bounds && replayed.screen) {
    replayNode = nodeAtBounds(replayed.screen, replayed.bounds, captured.node);
  }
  if (captured.node && replayNode && replayed.strategy !== "coordinates") {
    const diff = identityDiff(captured.node, replayNode, {
      valueText: VALUE_KINDS.has(captured.kind),
    });
    if (diff.length > 0) fail(`a different element: ${diff.join(", ")}`);
    else {
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
  return { passed, evidence, elementFailure, ...(replayNode ? { replayNode } : {}) };
}
