/**
 * Checks an output file flag before a command does any work: the folders are made (as
 * `blaze end --out` and `history --sheet` do), the file must be writable, not a folder and not
 * one of the command's input files, and no folder on its path may be a file. Private to `cli/`.
 *
 * @module
 */
import { dirname } from "node:path";
import { InputError } from "./errors.ts";

async function realPath(path: string): Promise<string | undefined> {
  try {
    return await Deno.realPath(path);
  } catch {
    return undefined;
  }
}

/**
 * Prepares `path` for writing at the end of a command.
 *
 * @param path the output file
 * @param flag the flag that named it (`--out`)
 * @param inputs files the command reads, which the output must not replace
 * @throws {InputError} naming the flag when the file cannot be written or is an input
 */
export async function prepareOutFile(
  path: string,
  flag: string,
  inputs: readonly string[] = [],
): Promise<void> {
  const real = await realPath(path);
  for (const input of inputs) {
    if (real !== undefined && real === await realPath(input)) {
      throw new InputError(`${flag}: ${path} is the input file; write the output elsewhere`);
    }
  }
  if ((await Deno.stat(path).catch(() => undefined))?.isDirectory) {
    throw new InputError(`${flag}: ${path} is a folder; name a file`);
  }
  // a parent that is a file: mkdir would only say "File exists"
  for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
    const info = await Deno.stat(dir).catch(() => undefined);
    if (info === undefined) continue; // missing (made below), or under a file (found above it)
    if (!info.isDirectory) {
      throw new InputError(`${flag}: ${path} cannot be written: ${dir} is a file, not a folder`);
    }
    break;
  }
  try {
    await Deno.mkdir(dirname(path), { recursive: true });
    const file = await Deno.open(path, { write: true, create: true, append: true });
    file.close();
    // an empty file made only to test the path would outlive a command that fails
    if (real === undefined) await Deno.remove(path);
  } catch (err) {
    // "No such file or directory (os error 2): mkdir '/proc/nope'" → its first part
    const why = (err as Error).message.replace(/ \(os error \d+\).*$/s, "");
    throw new InputError(`${flag}: ${path} cannot be written: ${why}`);
  }
}
