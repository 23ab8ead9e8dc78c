/**
 * Detection of generated identifiers and class names, which the selector pass never chooses:
 * they change from build to build (or render to render) and make a selector that works once.
 *
 * Under heuristics v2 a short Android resource name of letters only (`eq`, `ok`, `go`, `up`,
 * `fab`) is authored unless the screen holds a bulk of short names (an R8-obfuscated build names
 * everything `bj`, `ni`, `bsb`, `r7`); one with digits (`r7`, `ak2`) stays obfuscated.
 *
 * @module
 */
import type { ScreenTable } from "../screens/mod.ts";

const GENERATED_ID_PATTERNS: [RegExp, string][] = [
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i, "a GUID"],
  [/^:[a-z0-9]+:$|^:r[0-9a-z]*:/i, "a React useId"],
  [/^(ember|ext-gen|ext-comp|yui_|gwt-uid-|mui-|radix-|headlessui-)\d*/i, "a framework counter"],
  [/\d{5,}/, "a long digit run"],
  [/(^|[^0-9a-f])[0-9a-f]{10,}($|[^0-9a-f])/i, "a hash"],
  [/:id\/[a-z]{1,2}\d{0,3}$/i, "an obfuscated resource name"],
  [/^[a-z]{1,2}\d{1,3}$/i, "an obfuscated name"],
];

/** v2: the v1 list with the short resource name narrowed to one with digits. */
const GENERATED_ID_PATTERNS_V2: [RegExp, string][] = GENERATED_ID_PATTERNS.map((
  [re, why],
): [RegExp, string] =>
  why === "an obfuscated resource name" ? [/:id\/[a-z]{1,2}\d{1,3}$/i, why] : [re, why]
);
/** v2: a short letters-only resource name, obfuscated only in bulk (R8 goes to 3 letters). */
const SHORT_RESOURCE_NAME = /:id\/[a-z]{1,3}$/i;
/** Any short resource name (letters, maybe digits): what an obfuscated build is made of. */
const ANY_SHORT_RESOURCE_NAME = /:id\/[a-z]{1,2}\d{0,3}$/i;
// Distinct short resource names on one screen from which its letters-only ones count as
// obfuscated too: a real app has a few (`eq`, `ok`), an obfuscated one names everything so.
const OBFUSCATED_BULK = 4;

/** Options of {@linkcode generatedIdReason}. */
export interface GeneratedIdOptions {
  /** The heuristics level (default 1); from 2, short letters-only resource names need `screen`. */
  level?: number;
  /** The screen the id is on: its count of short resource names decides (level 2). */
  screen?: ScreenTable;
}

const SHORT_NAMES = new WeakMap<ScreenTable, number>();

/** How many distinct short resource names (`bj`, `r7`, `eq`) a screen holds (cached). */
function shortNamesOn(table: ScreenTable): number {
  let n = SHORT_NAMES.get(table);
  if (n === undefined) {
    const names = new Set<string>();
    for (let i = 0; i < table.size; i++) {
      const id = table.node(i).resourceId;
      if (id !== undefined && ANY_SHORT_RESOURCE_NAME.test(id)) names.add(id);
    }
    n = names.size;
    SHORT_NAMES.set(table, n);
  }
  return n;
}

const GENERATED_CLASS_PATTERNS: [RegExp, string][] = [
  [/^(css|sc|jsx|emotion|makeStyles|jss)-[A-Za-z0-9_-]+$/, "a CSS-in-JS class"],
  [/^_?[A-Za-z0-9]{5,8}_[A-Za-z0-9]{5}$/, "a CSS-modules hash"],
  [/(^|\.)[a-z]{1,2}(\.[a-z]{1,2}){1,}$/, "an obfuscated class"],
  [/\$\$Lambda|\$\d+$/, "a synthetic class"],
];

/**
 * Says why an id is generated, or undefined when it looks authored.
 *
 * @param id a resource id, DOM id or test id
 * @param options the heuristics level and the screen (v2's short resource names)
 * @returns the reason, e.g. "a GUID"
 * @example
 * ```ts
 * if (generatedIdReason(":r3:") === undefined) throw new Error();
 * if (generatedIdReason("next-button") !== undefined) throw new Error();
 * if (generatedIdReason("com.app:id/eq", { level: 2 }) !== undefined) throw new Error();
 * ```
 */
export function generatedIdReason(
  id: string,
  options: GeneratedIdOptions = {},
): string | undefined {
  if ((options.level ?? 1) < 2) {
    for (const [re, why] of GENERATED_ID_PATTERNS) if (re.test(id)) return why;
    return undefined;
  }
  for (const [re, why] of GENERATED_ID_PATTERNS_V2) if (re.test(id)) return why;
  if (SHORT_RESOURCE_NAME.test(id) && options.screen !== undefined) {
    const n = shortNamesOn(options.screen);
    if (n >= OBFUSCATED_BULK) return `an obfuscated resource name (${n} short ones on the screen)`;
  }
  return undefined;
}

/**
 * Says why a class name is generated, or undefined when it looks authored.
 *
 * @param className a native class name or CSS class
 * @returns the reason
 */
export function generatedClassReason(className: string): string | undefined {
  for (const [re, why] of GENERATED_CLASS_PATTERNS) if (re.test(className)) return why;
  return undefined;
}
