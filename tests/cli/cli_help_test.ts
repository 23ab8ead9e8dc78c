/**
 * `cairn --help` and `cairn <command> --help` as a user runs them (`deno run -A main.ts …` in a
 * child process): the overview lists every command of main.ts with its summary, and each
 * command's help shows every flag of its spec with its description. The expected text comes
 * from main.ts's `COMMANDS` and each command's `spec`, so a flag or a description that goes
 * missing from the help fails here.
 */
import { assert, assertEquals } from "../_fixtures/assert.ts";
import type { CommandSpec } from "../../cli/args.ts";
import { COMMANDS } from "../../main.ts";
import { cairn, pool } from "../_fixtures/cli_run.ts";
import { escapeRegex } from "../../engine/trail/regex.ts";

/** Every command's spec, loaded through main.ts's table, by name. */
const SPECS: Record<string, CommandSpec> = Object.fromEntries(
  await Promise.all(
    Object.entries(COMMANDS).map(async ([name, c]) => [name, (await c.load()).spec] as const),
  ),
);

/** Subprocesses at a time (the machines have 2 cores). */
const CONCURRENCY = 2;

Deno.test("every command of main.ts loads the spec of its own name", () => {
  assert(Object.keys(SPECS).length >= 12, Object.keys(SPECS).join(", "));
  for (const [name, spec] of Object.entries(SPECS)) assertEquals(spec.name, name);
});

Deno.test("cairn --help lists every command of main.ts with its summary, exit code 0", async () => {
  const commands = Object.entries(COMMANDS).map(([name, c]) => ({ name, summary: c.summary }));
  const r = await cairn(["--help"]);
  assertEquals(r.code, 0, r.stderr);
  const lines = r.stdout.split("\n");
  const from = lines.indexOf("Commands:");
  assert(from >= 0, `no "Commands:" section in:\n${r.stdout}`);
  const listed = lines.slice(from + 1, lines.indexOf("", from));
  assertEquals(listed.length, commands.length, `commands listed:\n${listed.join("\n")}`);
  for (const c of commands) {
    const line = listed.find((l) => l.trimStart().split(/\s/)[0] === c.name);
    assert(line !== undefined, `cairn --help does not list ${c.name}:\n${r.stdout}`);
    assert(
      new RegExp(`^\\s+${escapeRegex(c.name)}\\s{2,}${escapeRegex(c.summary)}$`).test(line),
      `${c.name}: expected its summary ${JSON.stringify(c.summary)}, got ${JSON.stringify(line)}`,
    );
  }
});

Deno.test("cairn <command> --help exits 0 and shows every flag with its description", async (t) => {
  const names = Object.keys(SPECS).sort();
  const outputs = await pool(names, CONCURRENCY, (name) => cairn([name, "--help"]));
  for (const [i, name] of names.entries()) {
    await t.step(name, () => {
      const spec = SPECS[name]!;
      const r = outputs[i]!;
      assertEquals(r.code, 0, `cairn ${name} --help: exit ${r.code}\n${r.stderr}`);
      const lines = r.stdout.split("\n");
      assertEquals(lines[0], `cairn ${name} — ${spec.summary}`);
      for (const p of spec.positionals ?? []) {
        assert(
          lines.some((l) => l.startsWith(`Usage: cairn ${name}`) && l.includes(` ${p}`)),
          `cairn ${name} --help: usage does not name ${p}:\n${r.stdout}`,
        );
      }
      for (const [flag, f] of Object.entries(spec.flags ?? {})) {
        const named = new RegExp(`(^|\\s)--${escapeRegex(flag)}(?![\\w-])`);
        const line = lines.find((l) => named.test(l) && l.includes(f.description));
        assert(
          line !== undefined,
          `cairn ${name} --help: no line with --${flag} and its description ` +
            `${JSON.stringify(f.description)}:\n${r.stdout}`,
        );
        if (f.alias) {
          assert(line.includes(`-${f.alias}, --${flag}`), `--${flag}: alias -${f.alias}: ${line}`);
        }
        if (f.default !== undefined) {
          assert(line.includes(`(default: ${f.default})`), `--${flag}: default: ${line}`);
        }
        if (f.min !== undefined && f.max !== undefined) {
          assert(line.includes(`[${f.min}..${f.max}]`), `--${flag}: range: ${line}`);
        } else if (f.min !== undefined) {
          assert(line.includes(`[≥ ${f.min}]`), `--${flag}: range: ${line}`);
        }
      }
    });
  }
});

Deno.test("a usage error is one line naming the command once, exit code 2", async () => {
  const cases: [string[], string][] = [
    [["history", "x", "--at", "abc"], 'cairn history: --at must be an integer, got "abc"'],
    [["history", "x", "--at", "0x3"], 'cairn history: --at must be an integer, got "0x3"'],
    [["history", "x", "--at", ""], "cairn history: flag --at needs a value"],
    [["history", "x", "--at="], "cairn history: flag --at needs a value"],
    [
      ["history", "x", "--at", "9007199254740993"],
      'cairn history: --at is too large: the largest is 9007199254740991, got "9007199254740993"',
    ],
    [
      ["history", "x", "--json=no"],
      'cairn history: --json takes no value, =true or =false, got "no"',
    ],
    [["history", "--db", ""], "cairn history: flag --db needs a value"],
    [["export", "x", "--db="], "cairn export: flag --db needs a value"],
    [["history", ""], "cairn history: SESSION must not be empty"],
    [["export", ""], "cairn export: TRAIL|SESSION must not be empty"],
    [["history", "x", "--bogus"], "cairn history: unknown flag --bogus (see cairn history --help)"],
    [["reproject"], "cairn reproject: name sessions or pass --all (see cairn reproject --help)"],
    // numeric flags out of their range, refused before anything starts
    [
      ["replay", "x.yaml", "--timeout", "-5"],
      'cairn replay: --timeout must be an integer from 1 to 600000, got "-5"',
    ],
    [
      ["replay", "x.yaml", "--timeout=0"],
      'cairn replay: --timeout must be an integer from 1 to 600000, got "0"',
    ],
    [
      ["appium", "start", "--port", "-1"],
      'cairn appium: --port must be an integer from 1 to 65535, got "-1"',
    ],
    [
      ["appium", "start", "--port", "70000"],
      'cairn appium: --port must be an integer from 1 to 65535, got "70000"',
    ],
    [
      ["blaze", "snapshot", "--depth", "-3"],
      'cairn blaze: --depth must be an integer of at least 1, got "-3"',
    ],
    [
      ["serve", "--port", "99999"],
      'cairn serve: --port must be an integer from 0 to 65535, got "99999"',
    ],
    [
      ["record", "--url", "http://127.0.0.1/", "--prompt", "p", "--port", "65536"],
      'cairn record: --port must be an integer from 0 to 65535, got "65536"',
    ],
    [
      ["snapshot", "x.xml", "--depth", "0"],
      'cairn snapshot: --depth must be an integer of at least 1, got "0"',
    ],
    [
      ["history", "x", "--at", "-1"],
      'cairn history: --at must be an integer of at least 0, got "-1"',
    ],
    [
      ["history", "--limit", "0"],
      'cairn history: --limit must be an integer of at least 1, got "0"',
    ],
    [
      ["history", "x", "--sheet", "s.png", "--columns", "13"],
      'cairn history: --columns must be an integer from 1 to 12, got "13"',
    ],
    [
      ["validate", "x", "--max-iterations", "21"],
      'cairn validate: --max-iterations must be an integer from 1 to 20, got "21"',
    ],
  ];
  await pool(cases, CONCURRENCY, async ([args, line]) => {
    const r = await cairn(args, { CAIRN_DB: "/nonexistent/cairn.db" }); // checked before the log
    assertEquals([r.code, r.stderr], [2, `${line}\n`], args.join(" "));
  });
});
