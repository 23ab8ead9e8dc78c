/**
 * README.md and the pages of docs/ stay true to the repository: every relative link resolves (the
 * file, and the heading an `#anchor` names in a markdown file), and every command line in a ```sh
 * block parses: the command exists, a blaze tool or an appium action is one its help lists, every
 * `--flag` (and `-x` alias) is one of that command's flags, and a flag with fixed choices is given
 * one of them. Commands are checked against their specs (`cli/<command>.ts`), the same objects
 * `--help` prints, loaded in process.
 *
 * @module
 */
import { assert, assertEquals } from "../_fixtures/assert.ts";
import { COMMANDS } from "../../main.ts";
import type { CommandSpec } from "../../cli/args.ts";

const ROOT = new URL("../../", import.meta.url);

/** The markdown files checked: README.md and every docs/*.md. */
async function docFiles(): Promise<string[]> {
  const files = ["README.md"];
  for await (const e of Deno.readDir(new URL("docs/", ROOT))) {
    if (e.isFile && e.name.endsWith(".md")) files.push(`docs/${e.name}`);
  }
  return files.sort();
}

/** The text outside fenced code blocks, each line kept in place (code lines blanked). */
function prose(text: string): string {
  let inCode = false;
  return text.split("\n").map((line) => {
    if (/^\s*```/.test(line)) {
      inCode = !inCode;
      return "";
    }
    return inCode ? "" : line;
  }).join("\n");
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, "").replaceAll(" ", "-");
}

/** Every anchor a markdown file's headings give, duplicates numbered as GitHub numbers them. */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(text).split("\n")) {
    const m = /^#{1,6} (.+?)\s*#*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative link targets of a markdown text (inline code removed first), with their lines. */
export function links(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  prose(text).split("\n").forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, "");
    for (const m of line.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      out.push({ target, line: i + 1 });
    }
  });
  return out;
}

/** Problems with the links of one file: a missing file or a missing heading. */
async function linkProblems(file: string, text: string): Promise<string[]> {
  const problems: string[] = [];
  for (const { target, line } of links(text)) {
    const [path, anchor] = target.split("#", 2) as [string, string | undefined];
    const url = path === "" ? new URL(file, ROOT) : new URL(path, new URL(file, ROOT));
    let stat: Deno.FileInfo | undefined;
    try {
      stat = await Deno.stat(url);
    } catch {
      problems.push(`${file}:${line}: ${target}: no such file`);
      continue;
    }
    if (anchor === undefined || !stat.isFile || !url.pathname.endsWith(".md")) continue;
    const names = anchors(await Deno.readTextFile(url));
    if (!names.has(anchor)) problems.push(`${file}:${line}: ${target}: no heading #${anchor}`);
  }
  return problems;
}

/** The lines of ```sh blocks, a line ending in `\` joined with the next, with their line numbers. */
export function shellLines(text: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  let inSh = false;
  let pending: { text: string; line: number } | undefined;
  text.split("\n").forEach((raw, i) => {
    const fence = /^\s*```(\w*)/.exec(raw);
    if (fence) {
      inSh = !inSh && fence[1] === "sh";
      return;
    }
    if (!inSh) return;
    const joined = pending ? `${pending.text} ${raw.trim()}` : raw.trim();
    const start = pending?.line ?? i + 1;
    if (joined.endsWith("\\")) pending = { text: joined.slice(0, -1).trim(), line: start };
    else {
      pending = undefined;
      out.push({ text: joined, line: start });
    }
  });
  return out;
}

/** Shell words of a line, quotes removed, up to a `#` comment. */
export function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    if (m[3]?.startsWith("#")) break;
    out.push(m[1] ?? m[2] ?? m[3]!);
  }
  return out;
}

/** The tasks of deno.json whose command runs a Cairn command: task → the words after `main.ts`. */
async function cairnTasks(): Promise<Map<string, string[] | null>> {
  const json = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const tasks = new Map<string, string[] | null>();
  for (const [name, task] of Object.entries(json.tasks as Record<string, unknown>)) {
    const command = typeof task === "string" ? task : (task as { command?: string }).command ?? "";
    const m = /^deno run -A main\.ts(.*)$/.exec(command);
    tasks.set(name, m ? m[1]!.trim().split(/\s+/).filter(Boolean) : null);
  }
  return tasks;
}

/**
 * The Cairn command line a shell line runs (`deno task cairn …`, `cairn …`, `deno task optimize …`,
 * `npx -y deno@2.9.6 task …`), as words after the program; undefined for any other line.
 * `{ task }` for a task that runs no Cairn command (`deno task test`).
 */
function cairnArgs(
  line: string,
  tasks: Map<string, string[] | null>,
): string[] | { task: string } | undefined {
  // leading environment assignments: CAIRN_TOKEN=$(openssl rand -hex 16) deno task cairn serve
  const bare = line.replace(/^(?:[A-Z_][A-Z0-9_]*=(?:\$\([^)]*\)|"[^"]*"|\S+)\s+)+/, "");
  const w = words(bare);
  if (w[0] === "cairn") return w.slice(1);
  let rest: string[] | undefined;
  if (w[0] === "deno" && w[1] === "task") rest = w.slice(2);
  if (w[0] === "npx" && w[1] === "-y" && /^deno@/.test(w[2] ?? "") && w[3] === "task") {
    rest = w.slice(4);
  }
  if (!rest) return undefined;
  const [task, ...args] = rest;
  if (task === undefined || !tasks.has(task)) return { task: task ?? "" };
  const prefix = tasks.get(task);
  return prefix === null ? { task } : [...prefix!, ...args];
}

/** The names a command's help lists under `Tools:` or `Actions:` (blaze tools, appium actions). */
function listedNames(spec: CommandSpec): Set<string> | undefined {
  const m = /\n(?:Tools|Actions):\n([\s\S]*?)(?:\n\n|$)/.exec(spec.details ?? "");
  if (!m) return undefined;
  return new Set([...m[1]!.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((x) => x[1]!));
}

/** Problems with one Cairn command line: an unknown command, tool, flag or choice. */
async function commandProblems(args: string[]): Promise<string[]> {
  const [name, ...rest] = args;
  if (name === undefined) return ["no command"];
  if (name === "--help" || name === "--version") return [];
  const entry = COMMANDS[name];
  if (!entry) return [`unknown command ${name}`];
  const { spec } = await entry.load();
  const problems: string[] = [];
  const tools = listedNames(spec);
  const first = rest.find((w) => !w.startsWith("-") && !w.startsWith("["));
  if (tools && first !== undefined && !tools.has(first)) {
    problems.push(`${name}: ${first} is none of ${[...tools].join(", ")}`);
  }
  const flags = spec.flags ?? {};
  const aliases = new Map(
    Object.entries(flags).filter(([, f]) => f.alias).map(([n, f]) => [f.alias!, n]),
  );
  const tokens = rest.map((w) => w.replace(/^\[+/, "").replace(/\]+$/, ""));
  tokens.forEach((token, i) => {
    let flag: string | undefined;
    const long = /^--([a-z][\w-]*)(?:=(.*))?$/.exec(token);
    const short = /^-([a-zA-Z])$/.exec(token);
    if (long) flag = long[1]!;
    else if (short) {
      flag = aliases.get(short[1]!);
      if (flag === undefined) problems.push(`${name}: no flag -${short[1]}`);
    } else return;
    if (flag === undefined || flag === "help") return;
    const spec = flags[flag];
    if (!spec) {
      problems.push(`${name}: no flag --${flag}`);
      return;
    }
    if (spec.choices) {
      const value = long?.[2] ?? tokens[i + 1];
      // a placeholder (MODE, a|b, …) stands for any choice
      const placeholder = value === undefined || /^[A-Z_]+$|[|…]/.test(value);
      if (!placeholder && !spec.choices.includes(value!)) {
        problems.push(`${name}: --${flag} ${value} is none of ${spec.choices.join(", ")}`);
      }
    }
  });
  return problems;
}

Deno.test("every relative link in README.md and docs/*.md resolves, #anchors included", async () => {
  const problems: string[] = [];
  let count = 0;
  for (const file of await docFiles()) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    count += links(text).length;
    problems.push(...await linkProblems(file, text));
  }
  assert(count > 50, `${count} links`);
  assertEquals(problems, []);
});

Deno.test("every command line in README.md and docs/*.md names a command, tool and flags that exist", async () => {
  const tasks = await cairnTasks();
  const problems: string[] = [];
  let count = 0;
  for (const file of await docFiles()) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    for (const { text: line, line: n } of shellLines(text)) {
      const args = cairnArgs(line, tasks);
      if (args === undefined) continue;
      count++;
      if (!Array.isArray(args)) {
        if (!tasks.has(args.task)) problems.push(`${file}:${n}: no deno task ${args.task}`);
        continue;
      }
      for (const p of await commandProblems(args)) problems.push(`${file}:${n}: ${p}: ${line}`);
    }
  }
  assert(count > 50, `${count} command lines`);
  assertEquals(problems, []);
});

Deno.test("slug() and anchors() number headings as GitHub does", () => {
  assertEquals(slug("`cairn.capture/v1`"), "cairncapturev1");
  assertEquals(
    slug("Replay suites: `--workers 2` against `--workers 1`"),
    "replay-suites---workers-2-against---workers-1",
  );
  assertEquals([...anchors("## Events\n```sh\n## not a heading\n```\n### Events\n")], [
    "events",
    "events-1",
  ]);
});

Deno.test("the checks find a broken link, a missing heading and an invented flag", async () => {
  assertEquals(
    await linkProblems(
      "docs/x.md",
      "[a](nosuch.md) [b](replay.md#nosuch) [c](replay.md#the-cascade)",
    ),
    [
      "docs/x.md:1: nosuch.md: no such file",
      "docs/x.md:1: replay.md#nosuch: no heading #nosuch",
    ],
  );
  assertEquals(await commandProblems(["replay", "t.yaml", "--no-such-flag"]), [
    "replay: no flag --no-such-flag",
  ]);
  assertEquals(await commandProblems(["optimize", "x", "--mode", "loose"]), [
    "optimize: --mode loose is none of strict, flexible, adaptive",
  ]);
  assertEquals(await commandProblems(["blaze", "fly"]).then((p) => p.length), 1);
  assertEquals(await commandProblems(["nosuch"]), ["unknown command nosuch"]);
});
