/**
 * The Android levels of the cascade: resource id (or test tag) → content description → text →
 * class + index, as UiAutomator2 lookups, scoped under a `within` ancestor or anchored to a row.
 *
 * @module
 */
import type { SelectorMode, Target } from "./actions.ts";
import { escapeRegex } from "../trail/mod.ts";
import {
  type CascadeLevel,
  levelsForMode,
  type LookupQuery,
  plannedInOrder,
  scoped,
  withNth,
} from "./cascade_levels.ts";

/**
 * Plans the Android cascade: resource id (or test tag) → content description → text → class +
 * index → coordinates, as UiAutomator2 lookups (Cairn's Android driver answers them). A trail's
 * ordered fallback list (`target.alternatives`) is followed in its order — the optimizer put the
 * unique selector first — each entry planned on its own, so its `index` and `childOf` qualify
 * only its own lookups; a lookup an earlier entry already planned is not repeated. A level
 * with an index shows it (`id=field[1]`).
 *
 * @param target what the recording knows of the element
 * @param mode the selector mode
 * @returns the levels to try, best first
 * @example
 * ```ts
 * const levels = androidCascade({ id: "com.app:id/ok", text: "OK" }, "adaptive");
 * if (levels[0]!.queries[0]!.using !== "id" || levels[1]!.strategy !== "text") throw new Error();
 * const ordered = androidCascade({
 *   id: "field",
 *   contentDescription: "input-email",
 *   alternatives: [{ contentDescription: "input-email" }, { id: "field", index: 0 }],
 * });
 * if (ordered[0]!.selector !== "~input-email" || ordered[1]!.selector !== "id=field[0]") throw new Error();
 * ```
 */
export function androidCascade(target: Target, mode: SelectorMode = "adaptive"): CascadeLevel[] {
  return levelsForMode(plannedInOrder(target, androidLevels), target, mode);
}

/** The Android levels of one selector (no coordinates), scoped and indexed as it says. */
function androidLevels(target: Omit<Target, "alternatives" | "point">): CascadeLevel[] {
  const levels: CascadeLevel[] = [];
  const ui = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  // A test tag (Compose testTag, React Native testID) is a bare resource-id on Android.
  const id = target.id ?? target.testId;
  if (id) {
    levels.push({
      strategy: "id",
      selector: `id=${id}`,
      queries: [{ using: "id", value: id }],
    });
  }
  const desc = target.contentDescription ?? target.ariaLabel;
  if (desc) {
    levels.push({
      strategy: "content_description",
      selector: `~${desc}`,
      queries: [{ using: "accessibility id", value: desc }],
    });
  }
  if (target.text) {
    levels.push({
      strategy: "text",
      selector: `text=${JSON.stringify(target.text)}`,
      queries: [
        { using: "-android uiautomator", value: `new UiSelector().text(${ui(target.text)})` },
        {
          using: "-android uiautomator",
          value: `new UiSelector().textMatches(${
            ui(`(?i)\\s*${escapeRegex(target.text.trim())}\\s*`)
          })`,
        },
      ],
    });
  }
  if (target.textRegex) {
    levels.push({
      strategy: "text",
      selector: `text=/${target.textRegex}/`,
      queries: [{
        using: "-android uiautomator",
        // UiAutomator's textMatches is a whole-string (anchored) Java regex match.
        value: `new UiSelector().textMatches(${ui(target.textRegex)})`,
      }],
    });
  }
  if (target.className && target.index === undefined && target.within) {
    // Type + parent context: the class alone, scoped under the parent below.
    levels.push({
      strategy: "class_index",
      selector: target.className,
      queries: [{
        using: "-android uiautomator",
        value: `new UiSelector().className(${ui(target.className)})`,
      }],
    });
  }
  if (target.className && target.index !== undefined) {
    levels.push({
      strategy: "class_index",
      selector: `${target.className}[${target.index}]`,
      queries: [{
        using: "-android uiautomator",
        value: `new UiSelector().className(${ui(target.className)}).instance(${target.index})`,
      }],
    });
  }
  const rows = target.within?.texts;
  return withNth(
    rows
      ? anchoredAndroidLevels(levels, rows)
      : scoped(levels, target, androidScope, scopeAndroidLevel),
    target,
  ).map((l) => l.nth === undefined ? l : { ...l, selector: `${l.selector}[${l.nth}]` });
}

/**
 * The lookup strategy of a row-anchored Android lookup: `value` (and `anchored.element`) is the
 * element's UiSelector, `anchored.texts` the row's texts, innermost first. UiAutomator has no
 * such query: the Android driver answers it over the page source (`AndroidScreenLookup`), and a
 * finder that does not know it refuses it rather than dropping the anchor.
 */
export const ANDROID_ROW_ANCHORED = "-cairn row anchored";

/**
 * The Android levels of a target anchored to rows (`within.texts`), as the web's
 * (`anchoredWebLevels`): each level's element must lie in its nearest ancestor showing the
 * first text (that node or one below it has that text, whitespace-normalised and ASCII
 * case-insensitively) and be the only match of the level there; a further text names the
 * nearest ancestor (or the row itself) showing it, which must hold one node showing the first.
 * A class + index level (`.instance(n)`, a position on the whole screen) stays as written.
 */
function anchoredAndroidLevels(
  levels: CascadeLevel[],
  texts: readonly string[],
): CascadeLevel[] {
  const label = texts.map((t) => `row(${JSON.stringify(t)})`).join(" ");
  return levels.map((level) => {
    if (level.queries.some((q) => /\.instance\(/.test(q.value))) return level;
    const queries = level.queries.map((q): LookupQuery => {
      const element = q.using === "-android uiautomator"
        ? q.value
        : q.using === "id"
        ? `new UiSelector().${uiResourceId(q.value)}`
        : `new UiSelector().description(${uiString(q.value)})`;
      return {
        using: ANDROID_ROW_ANCHORED,
        value: element,
        anchored: { element, texts: [...texts] },
      };
    });
    return { ...level, selector: `${label} >> ${level.selector}`, queries };
  });
}

const uiString = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;

/** A resource id as a UiSelector method: a bare name matches any package's `:id/name`. */
function uiResourceId(id: string): string {
  return id.includes(":id/")
    ? `resourceId(${uiString(id)})`
    : `resourceIdMatches(${uiString(`(.*:id/)?${escapeRegex(id)}`)})`;
}

/** The UiSelector of a target's `within` ancestor. */
function androidScope(target: Target): { ui: string; label: string } | undefined {
  const w = target.within;
  if (!w) return undefined;
  const id = w.id ?? w.testId;
  if (id) return { ui: `new UiSelector().${uiResourceId(id)}`, label: `id=${id}` };
  const desc = w.contentDescription ?? w.ariaLabel;
  if (desc) return { ui: `new UiSelector().description(${uiString(desc)})`, label: `~${desc}` };
  return undefined;
}

/** An Android level as a UiSelector `.childSelector(...)` under the scope's element. */
function scopeAndroidLevel(
  level: CascadeLevel,
  scope: { ui: string; label: string },
): CascadeLevel {
  const queries = level.queries.map((q): LookupQuery => {
    const child = q.using === "-android uiautomator"
      ? q.value
      : q.using === "id"
      ? `new UiSelector().${uiResourceId(q.value)}`
      : q.using === "accessibility id"
      ? `new UiSelector().description(${uiString(q.value)})`
      : undefined;
    if (child === undefined) return q;
    return { using: "-android uiautomator", value: `${scope.ui}.childSelector(${child})` };
  });
  return { ...level, selector: `${scope.label} >> ${level.selector}`, queries };
}
