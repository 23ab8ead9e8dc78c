import { assertEquals, assertThrows } from "../tests/assert.ts";
import { type CommandSpec, helpText, parseArgs, UsageError } from "./args.ts";

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
    "max-iterations": { type: "number", description: "Iterations" },
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
    "must be a number",
  );
});

Deno.test("helpText() lists every flag", () => {
  const text = helpText(SPEC);
  for (const f of ["--mode", "--explain", "-o, --out FILE", "--override I=V", "--max-iterations"]) {
    if (!text.includes(f)) throw new Error(`help lacks ${f}:\n${text}`);
  }
});
