/**
 * `cairn snapshot FILE`: the text snapshot of a captured hierarchy (UiAutomator2 / `uiautomator
 * dump` XML, XCUITest XML, Maestro JSON, Trailblaze waypoint, Cairn Chrome JSON), with stable
 * refs; optionally a set-of-mark screenshot. `cairn snapshot --diff A B` compares two screens.
 *
 * @module
 */
import { checkGeometry } from "../engine/formats/mod.ts";
import { parseHierarchy } from "../engine/screens/mod.ts";
import { drawMarks } from "../engine/screens/mod.ts";
import { renderSnapshot, type RenderSnapshotOptions } from "../engine/screens/mod.ts";
import { diffSnapshots, formatSnapshotDiff } from "../engine/screens/mod.ts";
import type { HierarchyFormat, Screen } from "../engine/screens/mod.ts";
import { bool, type CommandSpec, num, type ParsedArgs, str, UsageError } from "./args.ts";
import { InputError } from "./errors.ts";

/** Command spec of `cairn snapshot`. */
export const spec: CommandSpec = {
  name: "snapshot",
  summary: "Print the text snapshot (with stable refs) of a captured hierarchy",
  positionals: ["FILE", "[B]"],
  flags: {
    bounds: { type: "boolean", description: "Append each element's bounds {x,y,w,h}" },
    offscreen: {
      type: "boolean",
      description: "Include off-screen and hidden elements, marked (default: a count line)",
    },
    depth: { type: "integer", value: "N", min: 1, description: "Show at most N levels" },
    root: {
      type: "string",
      value: "R",
      description: "Show only the subtree of ref R (as `blaze snapshot --root`)",
    },
    ref: { type: "string", value: "R", description: "The same as --root" },
    format: {
      type: "string",
      choices: ["auto", "android", "ios", "maestro", "chrome", "trailblaze"],
      default: "auto",
      description: "Format of FILE",
    },
    marks: {
      type: "string",
      value: "OUT.png",
      description: "Write a set-of-mark screenshot here (needs --screenshot)",
    },
    screenshot: {
      type: "string",
      value: "IN.png",
      description: "The screenshot of the screen in FILE, for --marks",
    },
    diff: {
      type: "boolean",
      description: "Compare FILE with B (hierarchies or snapshot texts): unchanged, or +/-/~ lines",
    },
  },
  details: `Each line is an element: - Class "label" [states] [ref=R]. Refs are stable across
captures (hash of class, label and centre) and scoped to the screen that showed them.
Examples:
  cairn snapshot screen.xml
  cairn snapshot screen.xml --bounds --offscreen
  cairn snapshot screen.xml --root k42 --depth 2
  cairn snapshot page.chrome.json --marks marked.png --screenshot page.png
  cairn snapshot --diff before.xml after.xml`,
};

const FORMATS: Record<string, HierarchyFormat | "auto"> = {
  auto: "auto",
  android: "uiautomator2",
  ios: "xcuitest",
  maestro: "maestro",
  chrome: "chrome",
  trailblaze: "trailblaze",
};

async function readText(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    throw new InputError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

function parseFile(path: string, text: string, format: HierarchyFormat | "auto"): Screen {
  let screen: Screen;
  try {
    screen = parseHierarchy(text, { format });
  } catch (err) {
    if (err instanceof SyntaxError || err instanceof TypeError) {
      throw new SyntaxError(`${path}: ${err.message}`);
    }
    throw err;
  }
  checkGeometry(screen, path);
  return screen;
}

/** A hierarchy is XML or JSON; anything else is taken as an already rendered snapshot. */
function isHierarchy(text: string): boolean {
  return /^[\s\ufeff]*[<{[]/.test(text) && !/^\s*- /.test(text);
}

/** Runs `cairn snapshot`. */
export async function run(args: ParsedArgs): Promise<number> {
  const [file, other] = args.positionals as [string, string | undefined];
  const format = FORMATS[str(args, "format") ?? "auto"] ?? "auto";
  const depth = num(args, "depth");
  const options: RenderSnapshotOptions = {};
  if (bool(args, "bounds")) options.bounds = true;
  if (bool(args, "offscreen")) options.offscreen = true;
  if (depth !== undefined) options.depth = depth;
  const root = str(args, "root");
  const ref = str(args, "ref");
  if (root !== undefined && ref !== undefined && root !== ref) {
    throw new UsageError("snapshot: --root and --ref name the same thing; give one");
  }
  const subtree = root ?? ref;
  if (subtree !== undefined) options.root = subtree;

  if (bool(args, "diff")) {
    if (other === undefined) throw new UsageError("snapshot: --diff needs two files: A B");
    const texts = await Promise.all([file, other].map(async (path) => {
      const text = await readText(path);
      return isHierarchy(text) ? renderSnapshot(parseFile(path, text, format), options) : text;
    }));
    console.log(formatSnapshotDiff(diffSnapshots(texts[0]!, texts[1]!)).trimEnd());
    return 0;
  }
  if (other !== undefined) {
    throw new UsageError(`snapshot: unexpected argument ${JSON.stringify(other)} (use --diff A B)`);
  }
  const marks = str(args, "marks");
  const shotPath = str(args, "screenshot");
  if ((marks === undefined) !== (shotPath === undefined)) {
    throw new UsageError("snapshot: --marks OUT.png and --screenshot IN.png go together");
  }
  const screen = parseFile(file, await readText(file), format);
  let text: string;
  try {
    text = renderSnapshot(screen, options);
  } catch (err) {
    if (err instanceof RangeError || err instanceof SyntaxError) {
      throw new InputError(
        `--${root !== undefined ? "root" : "ref"} ${options.root}: ${err.message}`,
      );
    }
    throw err;
  }
  console.log(text.trimEnd());
  if (marks !== undefined && shotPath !== undefined) {
    let shot: Uint8Array;
    try {
      shot = await Deno.readFile(shotPath);
    } catch (err) {
      throw new InputError(`cannot read ${shotPath}: ${(err as Error).message}`);
    }
    let out: { png: Uint8Array; refs: string[] };
    try {
      out = await drawMarks(shot, screen, options.offscreen ? { offscreen: true } : {});
    } catch (err) {
      throw new InputError(
        `${shotPath} is not an image sharp can read: ${(err as Error).message}`,
      );
    }
    await Deno.writeFile(marks, out.png);
    console.error(`wrote ${marks} (${out.refs.length} marks)`);
  }
  return 0;
}
