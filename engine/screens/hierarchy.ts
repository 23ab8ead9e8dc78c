/**
 * One entry point for every raw hierarchy Cairn reads: detects the format from the text and
 * runs its parser.
 *
 * @module
 */
import { asRecord, parseJsonAt } from "./_parse_util.ts";
import { CHROME_SCHEMA_VERSION, parseChromeHierarchy } from "./chrome_hierarchy.ts";
import { isCdpAxTree, parseAxTree } from "./parse_axtree.ts";
import { parseJson } from "../input/mod.ts";
import { MAX_NESTING, treeTooDeep } from "../input/mod.ts";
import { parseAndroid } from "./parse_android.ts";
import { parseIos } from "./parse_ios.ts";
import { parseMaestro } from "./parse_maestro.ts";
import { parseTrailblaze } from "./parse_trailblaze.ts";
import type { HierarchyFormat, Screen } from "./ui_node.ts";

/** Options of {@linkcode parseHierarchy}. */
export interface ParseHierarchyOptions {
  /** The format of the text; `"auto"` (the default) detects it. */
  format?: HierarchyFormat | "auto";
}

function detectXml(text: string, start: number): HierarchyFormat | undefined {
  const head = text.slice(start, start + 4096);
  if (/<(AppiumAUT|XCUIElementType)/.test(head)) return "xcuitest";
  if (/<node[\s>/]/.test(head)) return "uiautomator-dump";
  if (/<hierarchy[\s>/]/.test(head)) return "uiautomator2";
  return undefined;
}

function detectJson(value: unknown): HierarchyFormat | undefined {
  const o = asRecord(value);
  if (!o) return undefined;
  if (o.schema_version === CHROME_SCHEMA_VERSION) return "chrome";
  if (isAxTreeJson(o)) return "axtree_v1";
  if (asRecord(o.viewHierarchy)) return "trailblaze";
  if (asRecord(o.attributes) && (o.children === undefined || Array.isArray(o.children))) {
    return "maestro";
  }
  return undefined;
}

/**
 * An `axtree_v1` snapshot (`schema_version: "axtree_v1"`, or a `nodes` list whose entries carry
 * `node_id`) or CDP's raw `Accessibility.getFullAXTree` result.
 */
function isAxTreeJson(o: Record<string, unknown>): boolean {
  if (o.schema_version === "axtree_v1" || isCdpAxTree(o)) return true;
  return Array.isArray(o.nodes) &&
    o.nodes.some((n) => n !== null && typeof n === "object" && "node_id" in n);
}

/**
 * Detects the format of a raw hierarchy from its text.
 *
 * @param text the raw hierarchy
 * @returns the format
 * @throws {SyntaxError} when the text is none of the known formats (or malformed JSON)
 * @example
 * ```ts
 * if (detectFormat('<hierarchy rotation="0"><node bounds="[0,0][1,1]"/></hierarchy>') !== "uiautomator-dump") throw new Error();
 * ```
 */
export function detectFormat(text: string): HierarchyFormat {
  return detect(text).format;
}

function detect(text: string): { format: HierarchyFormat; json?: unknown } {
  let i = 0;
  while (i < text.length && /[\s\ufeff]/.test(text[i]!)) i++;
  const c = text[i];
  if (c === "<") {
    const f = detectXml(text, i);
    if (f) return { format: f };
    throw new SyntaxError(
      "Cannot detect hierarchy format: XML without <hierarchy>, <node> or <AppiumAUT>/<XCUIElementType…>",
    );
  }
  if (c === "{" || c === "[") {
    const json = parseJsonAt(text, "hierarchy");
    const f = detectJson(json);
    if (f) return { format: f, json };
    throw new SyntaxError(
      "Cannot detect hierarchy format: JSON is neither Maestro ({attributes, children}), a Trailblaze waypoint (viewHierarchy), a Cairn Chrome hierarchy (schema_version cairn.chrome/v1) nor an AX snapshot (schema_version axtree_v1)",
    );
  }
  throw new SyntaxError(
    text.trim() === ""
      ? "Cannot detect hierarchy format: the input is empty"
      : "Cannot detect hierarchy format: expected XML or JSON",
  );
}

/**
 * Parsers registered by other modules; a registered parser replaces the built-in one of its
 * format (`axtree_v1` is built in: `parseAxTree`, imported directly, no side-effect import needed).
 */
const EXTRA_PARSERS = new Map<HierarchyFormat, (text: string, json?: unknown) => Screen>();

/**
 * Registers the parser of a format implemented outside this module, so `parseHierarchy`
 * dispatches to it (for `axtree_v1` it replaces the built-in `parseAxTree`).
 *
 * @param format the format
 * @param parse the parser: the text, and the parsed JSON when detection already parsed it
 */
export function registerHierarchyParser(
  format: HierarchyFormat,
  parse: (text: string, json?: unknown) => Screen,
): void {
  EXTRA_PARSERS.set(format, parse);
}

/**
 * Parses a raw hierarchy of any known format into a screen.
 *
 * @param text the raw hierarchy (XML or JSON)
 * @param options the format, or `"auto"` to detect it
 * @returns the screen
 * @throws {SyntaxError} on malformed input (line and column), an undetectable format, or nodes
 *   nested deeper than `MAX_NESTING` (engine/input/nesting.ts)
 * @example
 * ```ts
 * const s = parseHierarchy('<hierarchy><node class="android.widget.TextView" text="Hi" bounds="[0,0][10,10]"/></hierarchy>');
 * if (s.root.children[0]?.text !== "Hi") throw new Error();
 * ```
 */
export function parseHierarchy(text: string, options: ParseHierarchyOptions = {}): Screen {
  let format = options.format ?? "auto";
  let json: unknown;
  if (format === "auto") ({ format, json } = detect(text));
  const screen = parseAs(format, text, json);
  // Chrome and AX trees link nodes by index or id: their depth shows only once built.
  if (treeTooDeep(screen.root)) {
    throw new SyntaxError(`Hierarchy nodes nested deeper than ${MAX_NESTING} levels`);
  }
  return screen;
}

function parseAs(format: HierarchyFormat, text: string, json: unknown): Screen {
  switch (format) {
    case "uiautomator2":
    case "uiautomator-dump":
      return parseAndroid(text);
    case "xcuitest":
      return parseIos(text);
    case "maestro":
      return parseMaestro(json ?? text);
    case "trailblaze":
      return parseTrailblaze(json ?? text);
    case "chrome":
      return parseChromeHierarchy(json ?? text);
    case "axtree_v1": {
      const parse = EXTRA_PARSERS.get(format);
      if (parse) return parse(text, json);
      return parseAxTree(json ?? parseJson(text));
    }
    default: {
      const never: never = format;
      throw new TypeError(`Unknown hierarchy format ${String(never)}`);
    }
  }
}
