/**
 * Detection of generated identifiers and class names, which the selector pass never chooses:
 * they change from build to build (or render to render) and make a selector that works once.
 *
 * @module
 */

const GENERATED_ID_PATTERNS: [RegExp, string][] = [
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i, "a GUID"],
  [/^:[a-z0-9]+:$|^:r[0-9a-z]*:/i, "a React useId"],
  [/^(ember|ext-gen|ext-comp|yui_|gwt-uid-|mui-|radix-|headlessui-)\d*/i, "a framework counter"],
  [/\d{5,}/, "a long digit run"],
  [/(^|[^0-9a-f])[0-9a-f]{10,}($|[^0-9a-f])/i, "a hash"],
  [/:id\/[a-z]{1,2}\d{0,3}$/i, "an obfuscated resource name"],
  [/^[a-z]{1,2}\d{1,3}$/i, "an obfuscated name"],
];

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
 * @returns the reason, e.g. "a GUID"
 * @example
 * ```ts
 * if (generatedIdReason(":r3:") === undefined) throw new Error();
 * if (generatedIdReason("next-button") !== undefined) throw new Error();
 * ```
 */
export function generatedIdReason(id: string): string | undefined {
  for (const [re, why] of GENERATED_ID_PATTERNS) if (re.test(id)) return why;
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
