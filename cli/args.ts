/**
 * A small, strict argument parser for Cairn's commands: typed flags, `--help` text generated
 * from the same spec, and a {@linkcode UsageError} (exit code 2) for anything unknown.
 *
 * Values are strict: a boolean flag is `--flag`, `--flag=true` or `--flag=false`; an integer
 * flag takes decimal digits with an optional `-`, within its `min`..`max` (default the
 * safe-integer range; no `0x3`, no `1e3`, no silent rounding); no flag and no positional takes
 * an empty string.
 *
 * @module
 */
import { didYouMean } from "./did_you_mean.ts";

/** A flag of a command. */
export interface FlagSpec {
  type: "string" | "boolean" | "integer" | "list";
  description: string;
  /** Short alias without the dash (`o` for `-o`). */
  alias?: string;
  /** Allowed values of a string flag. */
  choices?: readonly string[];
  /** Shown in help; applied when the flag is absent. */
  default?: string | number | boolean;
  /** Placeholder in help (`FILE`). */
  value?: string;
  /** Smallest value of an integer flag (default `-Number.MAX_SAFE_INTEGER`); shown in help. */
  min?: number;
  /** Largest value of an integer flag (default `Number.MAX_SAFE_INTEGER`); shown in help. */
  max?: number;
}

/** A command's arguments: flags and named positionals. */
export interface CommandSpec {
  name: string;
  summary: string;
  /** Positional arguments, e.g. `["FILE..."]`; a trailing `...` takes the rest, `[X]` is optional. */
  positionals?: readonly string[];
  flags?: Record<string, FlagSpec>;
  /** Extra help text after the flags (examples). */
  details?: string;
}

/** Parsed arguments. */
export interface ParsedArgs {
  flags: Record<string, string | number | boolean | string[] | undefined>;
  positionals: string[];
  help: boolean;
  /** The flags given by their short form (`out` for `-o`), for a command that reads it. */
  short?: string[];
}

/** A command line that does not fit its command: printed as one line, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** An integer flag's value: decimal digits, optionally negative (no `+`, `0x`, `1e3`, `.5`). */
const INTEGER = /^-?\d+$/;

/**
 * Parses `argv` against a command spec.
 *
 * @param spec the command's flags and positionals
 * @param argv the arguments after the command name
 * @returns flags by name (defaults applied), positionals, and whether help was asked for
 * @throws {UsageError} on an unknown flag, a missing or empty value, a value that does not fit
 *   the flag's type, choices or range, or a missing or empty positional
 * @example
 * ```ts
 * const a = parseArgs({ name: "x", summary: "", flags: { n: { type: "integer", description: "" } } }, ["--n", "3"]);
 * if (a.flags.n !== 3) throw new Error();
 * ```
 */
export function parseArgs(spec: CommandSpec, argv: readonly string[]): ParsedArgs {
  const flags: ParsedArgs["flags"] = {};
  const positionals: string[] = [];
  const specs = spec.flags ?? {};
  const byAlias = new Map<string, string>();
  for (const [name, f] of Object.entries(specs)) if (f.alias) byAlias.set(f.alias, name);
  let help = false;
  const short: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h") {
      help = true;
      continue;
    }
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-" || /^-\d/.test(arg)) {
      positionals.push(arg);
      continue;
    }
    const long = arg.startsWith("--");
    const eq = arg.indexOf("=");
    const rawName = long
      ? arg.slice(2, eq > 0 ? eq : undefined)
      : arg.slice(1, eq > 0 ? eq : undefined);
    const name = long ? rawName : byAlias.get(rawName);
    const f = name === undefined ? undefined : specs[name];
    if (name === undefined || f === undefined) {
      const guess = long ? didYouMean(rawName, Object.keys(specs)) : undefined;
      throw new UsageError(
        `${spec.name}: unknown flag ${arg}${
          guess ? ` (did you mean --${guess}?)` : ""
        } (see cairn ${spec.name} --help)`,
      );
    }
    if (!long && !short.includes(name)) short.push(name);
    if (f.type === "boolean") {
      flags[name] = eq > 0 ? booleanValue(spec.name, name, arg.slice(eq + 1)) : true;
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === "") {
      throw new UsageError(`${spec.name}: flag --${name} needs a value`);
    }
    if (f.type === "list") {
      const prev = flags[name];
      flags[name] = [...(Array.isArray(prev) ? prev : []), value];
    } else flags[name] = flagValue(spec.name, name, f, value);
  }
  for (const [name, f] of Object.entries(specs)) {
    if (flags[name] === undefined && f.default !== undefined) flags[name] = f.default;
  }
  if (!help) {
    const required = (spec.positionals ?? []).filter((p) => !p.startsWith("["));
    if (positionals.length < required.length) {
      throw new UsageError(
        `${spec.name}: missing ${
          required.slice(positionals.length).join(" ")
        } (see cairn ${spec.name} --help)`,
      );
    }
    const empty = positionals.indexOf("");
    if (empty >= 0) {
      throw new UsageError(`${spec.name}: ${positionalName(spec, empty)} must not be empty`);
    }
    const rest = (spec.positionals ?? []).some((p) => p.includes("..."));
    if (!rest && positionals.length > (spec.positionals ?? []).length) {
      throw new UsageError(
        `${spec.name}: unexpected argument ${JSON.stringify(positionals.at(-1))}`,
      );
    }
  }
  return { flags, positionals, help, ...(short.length > 0 ? { short } : {}) };
}

/** `--flag=VALUE` of a boolean flag: `true` or `false`, nothing else. */
function booleanValue(command: string, name: string, value: string): boolean {
  if (value === "true" || value === "false") return value === "true";
  throw new UsageError(
    `${command}: --${name} takes no value, =true or =false, got ${JSON.stringify(value)}`,
  );
}

/** The value of a string or integer flag, checked against its choices, its type or its range. */
function flagValue(command: string, name: string, f: FlagSpec, value: string): string | number {
  if (f.choices && !f.choices.includes(value)) {
    throw new UsageError(
      `${command}: --${name} must be one of ${f.choices.join(", ")}, got ${JSON.stringify(value)}`,
    );
  }
  if (f.type !== "integer") return value;
  if (!INTEGER.test(value)) {
    throw new UsageError(`${command}: --${name} must be an integer, got ${JSON.stringify(value)}`);
  }
  const n = Number(value);
  const min = f.min ?? -Number.MAX_SAFE_INTEGER;
  const max = f.max ?? Number.MAX_SAFE_INTEGER;
  if (f.max === undefined && f.min !== undefined && n > max) {
    // "of at least 0" would not say what is wrong with 99999999999999999999
    throw new UsageError(
      `${command}: --${name} is too large: the largest is ${max}, got ${JSON.stringify(value)}`,
    );
  }
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range = f.max === undefined && f.min !== undefined
      ? `of at least ${min}`
      : `from ${min} to ${max}`;
    throw new UsageError(
      `${command}: --${name} must be an integer ${range}, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/** An integer flag's range as help shows it (`[0..65535]`, `[≥ 1]`), or "" when it has none. */
function rangeText(f: FlagSpec): string {
  if (f.min === undefined && f.max === undefined) return "";
  if (f.max === undefined) return ` [≥ ${f.min}]`;
  if (f.min === undefined) return ` [≤ ${f.max}]`;
  return ` [${f.min}..${f.max}]`;
}

/** The name in help of the positional at `index` (`SESSION` for `[SESSION]`, `FILE` for `FILE...`). */
function positionalName(spec: CommandSpec, index: number): string {
  const names = spec.positionals ?? [];
  return (names[index] ?? names.at(-1) ?? "argument").replace(/[[\].]/g, "");
}

/**
 * Renders a command's help text from its spec.
 *
 * @param spec the command
 * @returns the help text
 */
export function helpText(spec: CommandSpec): string {
  const lines = [
    `cairn ${spec.name} — ${spec.summary}`,
    "",
    `Usage: cairn ${spec.name}${(spec.positionals ?? []).map((p) => " " + p).join("")}${
      spec.flags && Object.keys(spec.flags).length ? " [flags]" : ""
    }`,
  ];
  // every flag and --help in one table, descriptions aligned
  const rows = Object.entries(spec.flags ?? {}).map(([name, f]): [string, string] => {
    const val = f.type === "boolean"
      ? ""
      : ` ${f.value ?? (f.choices ? f.choices.join("|") : f.type.toUpperCase())}`;
    const def = f.default !== undefined ? ` (default: ${f.default})` : "";
    return [
      `${f.alias ? `-${f.alias}, ` : "    "}--${name}${val}`,
      `${f.description}${rangeText(f)}${def}`,
    ];
  });
  rows.push(["-h, --help", "Show this help"]);
  const width = Math.max(...rows.map(([left]) => left.length));
  lines.push("", "Flags:", ...rows.map(([left, text]) => `  ${left.padEnd(width)}  ${text}`));
  if (spec.details) lines.push("", spec.details.trim());
  return lines.join("\n") + "\n";
}

/** Reads a string flag, or undefined. */
export function str(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags[name];
  return typeof v === "string" ? v : undefined;
}

/** Reads an integer flag, or undefined. */
export function num(args: ParsedArgs, name: string): number | undefined {
  const v = args.flags[name];
  return typeof v === "number" ? v : undefined;
}

/** Reads a boolean flag (false when absent). */
export function bool(args: ParsedArgs, name: string): boolean {
  return args.flags[name] === true;
}

/** Reads a repeatable flag (empty when absent). */
export function list(args: ParsedArgs, name: string): string[] {
  const v = args.flags[name];
  return Array.isArray(v) ? v : [];
}
