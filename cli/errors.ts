/**
 * One place that turns an error into the one line the CLI prints and its exit code.
 *
 * Bad input exits 2: usage (a flag's value, an empty argument), parse and schema errors,
 * unknown formats, a file that is not a Cairn event log (or a damaged, read-only or newer one:
 * the database is the command's input, and the line names it), a stored event that cannot be
 * read (named by its position), and a session named on the command line that does not exist. A
 * version conflict, a missing event log (a reading command's
 * `--db` where none is) or anything else that fails exits 1.
 *
 * @module
 */
import { z } from "zod";
import { UsageError } from "./args.ts";
import { InvalidStreamError, StoreFileError } from "../events/mod.ts";
import { UnreadableEventError } from "../events/mod.ts";

/** Bad input that names its source: a file and a field or line. Exit code 2. */
export class InputError extends Error {
  override name = "InputError";
}

/**
 * Describes an error in one line.
 *
 * @param err anything thrown
 * @returns a single line, without a stack
 */
export function describeError(err: unknown): string {
  if (err instanceof z.ZodError) {
    return err.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ");
  }
  if (err instanceof Error) return fileSystemLine(err.message) ?? err.message.split("\n").join(" ");
  return String(err);
}

/**
 * Deno's file-system errors read `No such file or directory (os error 2): writefile '/x/y'`;
 * the CLI says `/x/y: no such file or directory`, the file first as for every other error.
 */
function fileSystemLine(message: string): string | undefined {
  const m = /^(.+) \(os error \d+\): \w+ '([^']*)'$/.exec(message);
  return m ? `${m[2]}: ${m[1]!.charAt(0).toLowerCase()}${m[1]!.slice(1)}` : undefined;
}

/**
 * The exit code for an error: 2 for bad input (what a stored stream holds that cannot be read or
 * projected included), 1 otherwise.
 *
 * @param err anything thrown
 * @returns the process exit code
 */
export function exitCodeOf(err: unknown): number {
  if (
    err instanceof UsageError || err instanceof InputError || err instanceof SyntaxError ||
    err instanceof z.ZodError || err instanceof StoreFileError ||
    err instanceof UnreadableEventError || err instanceof InvalidStreamError
  ) return 2;
  return 1;
}
