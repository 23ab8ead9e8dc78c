/**
 * Reads a file a flag names (`validate --trail FILE`), saying in one line what is wrong with a
 * path that cannot be read: missing, a folder, not readable. Private to `cli/`.
 *
 * @module
 */
import { InputError } from "./errors.ts";

/**
 * Reads a text file named on the command line.
 *
 * @param path the file
 * @param flag the flag that named it (`--trail`)
 * @returns its text
 * @throws {InputError} naming the flag and the path when it cannot be read
 */
export async function readInputFile(path: string, flag: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new InputError(`${path}: no such file`);
    if (err instanceof Deno.errors.IsADirectory) {
      throw new InputError(`${flag}: ${path} is a folder; name a file`);
    }
    // "Permission denied (os error 13): readfile '/x'" → its first part
    const why = (err as Error).message.replace(/ \(os error \d+\).*$/s, "");
    throw new InputError(`${flag}: ${path} cannot be read: ${why}`);
  }
}
