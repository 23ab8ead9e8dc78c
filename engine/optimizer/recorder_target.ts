/**
 * Heuristics v2, web: the element a human recorder's action acted on when the screen stored
 * before it is not the page at the action (`toolParams.screenBefore`: `earlier` — taken before
 * the press, the page changed since; `none` — no screen from before the press, so the last one
 * stored is older still). A hit test of the action's point on such a screen can name another
 * element (the page moved its rows, a banner pushed the content down). The recorder's page
 * script read the clicked element's own selectors at the action (`target.selectors`: testId,
 * ariaLabel, id, name, text, cssPath, tag), so they decide:
 *
 * - the node the point hits is kept when it agrees with them (its ids, its name or text, and its
 *   CSS path at the same places among its siblings);
 * - else the one node of the screen that agrees with them, a CSS path or an id among the
 *   agreeing properties (the page moved, the element did not);
 * - else no node: the trail takes the recorder's selectors, unverified, and says so.
 *
 * A `changing` screen was captured from the press on, and an exact one (no `screenBefore`) is
 * the page at the press: the hit test stands for both, as it did.
 *
 * @module
 */
import type { EventData } from "../../events/mod.ts";
import type { ScreenTable } from "../screens/mod.ts";
import { elementText, norm } from "./anchors.ts";

/** The screens before an action that are not the page at it. */
const NOT_AT_ACTION = new Set(["earlier", "none"]);

/**
 * Why the screen before a recorded action is not the page at it, when it is not.
 *
 * @param d the action
 * @returns `earlier` or `none`, else undefined
 * @example
 * ```ts
 * const d = { actionId: "a", kind: "tap", source: "human", toolParams: { screenBefore: "earlier" } } as const;
 * if (staleScreen(d) !== "earlier") throw new Error();
 * ```
 */
export function staleScreen(d: EventData<"ActionPerformed">): "earlier" | "none" | undefined {
  const flag = d.toolParams?.screenBefore;
  return typeof flag === "string" && NOT_AT_ACTION.has(flag)
    ? flag as "earlier" | "none"
    : undefined;
}

/** What v2 makes of a hit on a stale screen. */
export interface RecorderTargetReading {
  /** The node to keep (the hit, or the one the recorder's selectors name); none: trust them. */
  node?: number;
  note: string;
  /** Said in the projection's warnings. */
  warning?: string;
}

/** One step of a CSS path: its tag, id and place among same-tag siblings, as far as written. */
interface Step {
  tag?: string;
  id?: string;
  nth?: number;
}

const STEP =
  /^([A-Za-z][\w-]*)?(?:#((?:\\.|[^.:#\\])+))?(?:\.(?:\\.|[^.:#\\])+)*(?::nth-of-type\((\d+)\))?$/;

function stepsOf(path: string): Step[] | undefined {
  // inside a shadow root: the last root's path
  const last = path.split(">>>").pop()!.trim();
  const out: Step[] = [];
  for (const raw of last.split(" > ")) {
    const m = STEP.exec(raw.trim());
    if (!m) return undefined;
    out.push({
      ...(m[1] ? { tag: m[1].toLowerCase() } : {}),
      ...(m[2] ? { id: m[2].replace(/\\(.)/g, "$1") } : {}),
      ...(m[3] ? { nth: Number(m[3]) } : {}),
    });
  }
  return out;
}

/**
 * Whether the recorder's CSS path and a captured one can name the same element: from the
 * element up, the same tags, the same place among same-tag siblings where both say one, up to
 * the first id both name. The recorder writes a place wherever same-tag siblings are (at the
 * action), the capture only where its classes do not tell them apart: a capture's place the
 * recorder did not write means the siblings changed.
 *
 * @param recorded the recorder's `cssPath` (`div#list > div:nth-of-type(2) > button`)
 * @param captured a screen node's (`#list > div.row:nth-of-type(2) > button`)
 * @returns false when they cannot be the same element
 * @example
 * ```ts
 * const rec = "div#list > div:nth-of-type(2) > button";
 * if (!samePlace(rec, "#list > div.row:nth-of-type(2) > button")) throw new Error();
 * if (samePlace(rec, "#list > div.row:nth-of-type(3) > button")) throw new Error();
 * ```
 */
export function samePlace(recorded: string, captured: string): boolean {
  const a = stepsOf(recorded);
  const b = stepsOf(captured);
  if (!a || !b) return false;
  for (let i = a.length - 1, j = b.length - 1; i >= 0 && j >= 0; i--, j--) {
    const r = a[i]!;
    const c = b[j]!;
    if (r.tag !== undefined && c.tag !== undefined && r.tag !== c.tag) return false;
    if (r.id !== undefined && c.id !== undefined) return r.id === c.id;
    if (c.id !== undefined && r.id === undefined) return false;
    if (c.nth !== undefined && r.nth !== c.nth) return false;
  }
  return true;
}

/**
 * How a screen node stands to the recorder's selectors: `false` when a property contradicts
 * them, else whether it agrees by its place (CSS path) or an id rather than by copy alone.
 */
function agreement(
  table: ScreenTable,
  i: number,
  rec: Readonly<Record<string, string>>,
): false | "placed" | "copy" {
  const n = table.node(i);
  let placed = false;
  if (rec.testId !== undefined) {
    if (n.testId !== rec.testId) return false;
    placed = true;
  }
  if (rec.id !== undefined && rec.id !== "") {
    if (n.resourceId !== rec.id) return false;
    placed = true;
  }
  if (rec.ariaLabel !== undefined && n.contentDescription !== undefined) {
    if (norm(n.contentDescription) !== norm(rec.ariaLabel)) return false;
  }
  if (rec.name !== undefined || rec.text !== undefined) {
    const name = n.name !== undefined && rec.name !== undefined &&
      norm(n.name) === norm(rec.name);
    const text = rec.text !== undefined && elementText(table, i) === norm(rec.text);
    if (!name && !text) return false;
  }
  const path = n.attrs?.cssPath;
  if (rec.cssPath !== undefined && path !== undefined) {
    if (!samePlace(rec.cssPath, path)) return false;
    placed = true;
  }
  return placed ? "placed" : "copy";
}

/** A node as a person reads it in a note. */
function describe(table: ScreenTable, i: number): string {
  const n = table.node(i);
  const name = n.name ?? n.text;
  return `${n.role ?? n.className}${name !== undefined ? ` ${JSON.stringify(name)}` : ""}${
    n.attrs?.cssPath ? ` (${n.attrs.cssPath})` : ""
  }`;
}

/**
 * v2, web: the node of a recorded action on a screen that is not the page at the action, from
 * the recorder's own target (see the module doc).
 *
 * @param table the screen stored before the action
 * @param hit the node the action's point hits (after the climb to a control), or -1
 * @param flag why the screen is not the page at the action
 * @param rec the recorder's selectors of the element acted on (`target.selectors`)
 * @returns the node to keep (none: the recorder's selectors), a note, and a warning when the
 *   trail takes selectors no screen verified
 */
export function recorderTarget(
  table: ScreenTable,
  hit: number,
  flag: "earlier" | "none",
  rec: Readonly<Record<string, string>> | undefined,
): RecorderTargetReading {
  const screen = flag === "earlier"
    ? "the screen before it was captured before the press and the page changed since"
    : "no screen from before its press was captured (the one before is older)";
  if (!rec || Object.keys(rec).every((k) => k === "tag")) {
    return {
      ...(hit >= 0 ? { node: hit } : {}),
      note: `${screen}: the recorder gave no target of its own, the hit test stands`,
      warning: `${screen}, and the recorder gave no target of its own: the element the hit ` +
        `test names${hit >= 0 ? ` (${describe(table, hit)})` : ""} may not be the one acted on`,
    };
  }
  if (hit >= 0 && agreement(table, hit, rec) !== false) {
    return { node: hit, note: `${screen}: the hit agrees with the recorder's target` };
  }
  const found: number[] = [];
  for (let i = 0; i < table.size && found.length < 2; i++) {
    if (agreement(table, i, rec) === "placed") found.push(i);
  }
  const missed = hit >= 0
    ? `the point hits ${describe(table, hit)} there`
    : "the point hits nothing";
  if (found.length === 1) {
    return {
      node: found[0]!,
      note: `${screen}: the recorder's target ${describe(table, found[0]!)}, not the hit test ` +
        `(${missed})`,
    };
  }
  return {
    note: `${screen}, ${missed}, not the recorder's target, which ${
      found.length === 0 ? "no node of it" : "more than one node"
    } agrees with: selectors from the recorder, unverified`,
    warning: `${screen}, and it does not show the element the recorder saw acted on ` +
      `(${missed}): selectors from the recorder, unverified`,
  };
}
