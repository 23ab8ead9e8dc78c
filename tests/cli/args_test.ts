import { assertEquals, assertThrows } from "../_fixtures/assert.ts";
import { type CommandSpec, helpText, parseArgs, UsageError } from "../../cli/args.ts";

const SPEC: CommandSpec = {
  name: "optimize",
  summary: "Project a capture",
  positionals: ["CAPTURE"],
  flags: {
    mode: {
      type: "string",
      choices: ["strict", "flexible", "adaptive"],
      description: "Selector mode",
      default: "adaptive",
    },
    explain: { type: "boolean", description: "Explain choices" },
    out: { type: "string", alias: "o", description: "Output file", value: "FILE" },
    override: { type: "list", description: "Override", value: "I=V" },
    "max-iterations": { type: "integer", description: "Iterations" },
  },
};

Deno.test("parseArgs() reads typed flags, aliases, lists and defaults", () => {
  const a = parseArgs(SPEC, [
    "cap.json",
    "--explain",
    "-o",
    "t.yaml",
    "--override",
    "3=x",
    "--override=4=y",
    "--max-iterations",
    "5",
  ]);
  assertEquals(a.positionals, ["cap.json"]);
  assertEquals(a.flags, {
    explain: true,
    out: "t.yaml",
    override: ["3=x", "4=y"],
    "max-iterations": 5,
    mode: "adaptive",
  });
  // which flags came by their short form (blaze refuses an -o that reads as its old --step)
  assertEquals(a.short, ["out"]);
  assertEquals(parseArgs(SPEC, ["cap.json", "--out", "t.yaml"]).short, undefined);
});

Deno.test("parseArgs() rejects unknown flags, bad choices and missing positionals", () => {
  assertThrows(() => parseArgs(SPEC, ["c", "--nope"]), UsageError, "unknown flag --nope");
  assertThrows(
    () => parseArgs(SPEC, ["c", "--mode", "loose"]),
    UsageError,
    "--mode must be one of",
  );
  assertThrows(() => parseArgs(SPEC, []), UsageError, "missing CAPTURE");
  assertThrows(
    () => parseArgs(SPEC, ["c", "--max-iterations", "many"]),
    UsageError,
    '--max-iterations must be an integer, got "many"',
  );
});

Deno.test("parseArgs() takes an integer flag as plain decimal digits within the safe range", () => {
  const ok: [string, number][] = [
    ["0", 0],
    ["42", 42],
    ["-3", -3],
    ["007", 7],
    ["9007199254740991", Number.MAX_SAFE_INTEGER],
    ["-9007199254740991", -Number.MAX_SAFE_INTEGER],
  ];
  for (const [value, n] of ok) {
    assertEquals(parseArgs(SPEC, ["c", "--max-iterations", value]).flags["max-iterations"], n);
    assertEquals(parseArgs(SPEC, ["c", `--max-iterations=${value}`]).flags["max-iterations"], n);
  }
  const notIntegers = [
    "0x3",
    "0b1",
    "0o7",
    "1e3",
    "1.5",
    "3.",
    ".5",
    "+3",
    " 3",
    "3 ",
    "1_000",
    "∞",
  ];
  for (const value of notIntegers) {
    assertThrows(
      () => parseArgs(SPEC, ["c", "--max-iterations", value]),
      UsageError,
      `optimize: --max-iterations must be an integer, got ${JSON.stringify(value)}`,
    );
  }
  for (
    const value of [
      "9007199254740992",
      "9007199254740993",
      "-9007199254740993",
      "1" + "0".repeat(400),
    ]
  ) {
    assertThrows(
      () => parseArgs(SPEC, ["c", `--max-iterations=${value}`]),
      UsageError,
      `optimize: --max-iterations must be an integer from -9007199254740991 to 9007199254740991, got "${value}"`,
    );
  }
});

Deno.test("parseArgs() refuses an integer flag outside its min..max, naming the flag and the range", () => {
  const spec: CommandSpec = {
    name: "serve",
    summary: "",
    flags: {
      port: { type: "integer", min: 0, max: 65535, description: "Port" },
      limit: { type: "integer", min: 1, description: "Limit" },
      offset: { type: "integer", max: 10, description: "Offset" },
    },
  };
  const ok: [string, string, number][] = [
    ["port", "0", 0],
    ["port", "65535", 65535],
    ["limit", "1", 1],
    ["limit", "9007199254740991", Number.MAX_SAFE_INTEGER],
    ["offset", "10", 10],
    ["offset", "-9007199254740991", -Number.MAX_SAFE_INTEGER],
  ];
  for (const [flag, value, n] of ok) {
    assertEquals(parseArgs(spec, [`--${flag}`, value]).flags[flag], n, `--${flag} ${value}`);
  }
  const bad: [string, string, string][] = [
    ["port", "-1", "from 0 to 65535"],
    ["port", "65536", "from 0 to 65535"],
    ["port", "99999", "from 0 to 65535"],
    ["port", "1" + "0".repeat(30), "from 0 to 65535"],
    ["limit", "0", "of at least 1"],
    ["limit", "-5", "of at least 1"],
    ["offset", "11", "from -9007199254740991 to 10"],
  ];
  for (const [flag, value, range] of bad) {
    assertThrows(
      () => parseArgs(spec, [`--${flag}=${value}`]),
      UsageError,
      `serve: --${flag} must be an integer ${range}, got ${JSON.stringify(value)}`,
    );
  }
  // no upper bound of its own: past the largest safe integer is "too large", not "at least 1"
  for (const value of ["9007199254740992", "99999999999999999999", "1" + "0".repeat(400)]) {
    assertThrows(
      () => parseArgs(spec, ["--limit", value]),
      UsageError,
      `serve: --limit is too large: the largest is 9007199254740991, got "${value}"`,
    );
  }
});

Deno.test("parseArgs() takes a boolean flag bare, =true or =false, and nothing else", () => {
  assertEquals(parseArgs(SPEC, ["c", "--explain"]).flags.explain, true);
  assertEquals(parseArgs(SPEC, ["c", "--explain=true"]).flags.explain, true);
  assertEquals(parseArgs(SPEC, ["c", "--explain=false"]).flags.explain, false);
  for (const value of ["no", "yes", "0", "1", "", "TRUE", "False", "off"]) {
    assertThrows(
      () => parseArgs(SPEC, ["c", `--explain=${value}`]),
      UsageError,
      `optimize: --explain takes no value, =true or =false, got ${JSON.stringify(value)}`,
    );
  }
});

Deno.test("parseArgs() refuses an empty value of any flag that takes one", () => {
  for (const flag of ["--out", "-o", "--mode", "--override", "--max-iterations"]) {
    for (const argv of [[flag, ""], [`${flag}=`]]) {
      const name = flag === "-o" ? "out" : flag.slice(2);
      assertThrows(
        () => parseArgs(SPEC, ["c", ...argv]),
        UsageError,
        `optimize: flag --${name} needs a value`,
      );
    }
  }
});

Deno.test("parseArgs() refuses an empty positional, naming it as help does", () => {
  assertThrows(() => parseArgs(SPEC, [""]), UsageError, "optimize: CAPTURE must not be empty");
  assertThrows(() => parseArgs(SPEC, ["--", ""]), UsageError, "CAPTURE must not be empty");
  const rest: CommandSpec = { name: "ingest", summary: "", positionals: ["FILE..."] };
  assertEquals(parseArgs(rest, ["a", "b"]).positionals, ["a", "b"]);
  assertThrows(() => parseArgs(rest, ["a", ""]), UsageError, "ingest: FILE must not be empty");
  const optional: CommandSpec = { name: "history", summary: "", positionals: ["[SESSION]"] };
  assertEquals(parseArgs(optional, []).positionals, []);
  assertThrows(() => parseArgs(optional, [""]), UsageError, "history: SESSION must not be empty");
});

Deno.test("helpText() lists every flag", () => {
  const text = helpText(SPEC);
  for (const f of ["--mode", "--explain", "-o, --out FILE", "--override I=V", "--max-iterations"]) {
    if (!text.includes(f)) throw new Error(`help lacks ${f}:\n${text}`);
  }
});

Deno.test("helpText() shows an integer flag's range before its default", () => {
  const text = helpText({
    name: "serve",
    summary: "",
    flags: {
      port: {
        type: "integer",
        value: "PORT",
        min: 0,
        max: 65535,
        default: 8787,
        description: "Port",
      },
      limit: { type: "integer", min: 1, description: "Limit" },
      n: { type: "integer", description: "N" },
    },
  });
  const line = (flag: string) =>
    text.split("\n").find((l) => l.includes(`--${flag} `))?.trim().replace(/\s+/g, " ");
  assertEquals(line("port"), "--port PORT Port [0..65535] (default: 8787)");
  assertEquals(line("limit"), "--limit INTEGER Limit [≥ 1]");
  assertEquals(line("n"), "--n INTEGER N");
});
