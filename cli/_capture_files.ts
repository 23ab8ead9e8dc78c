/**
 * How a capture's file references (`"viewHierarchy": {"file": "screens/3.xml"}`, a screenshot
 * path) are read by `ingest`, `replay` and the commands that ingest a capture first: resolved
 * inside the capture's own folder (a path that leaves it, through `..`, an absolute path or a
 * symbolic link, only with `--allow-outside`), regular files only (no devices, FIFOs, sockets,
 * nor anything under /proc, /sys or /dev), at most {@linkcode DEFAULT_MAX_FILE_MIB} MiB each
 * (`--max-file-size`), read within {@linkcode READ_TIMEOUT_MS}. A refusal is bad input: the
 * caller names the action's field and the path (exit 2). Private to `cli/`.
 *
 * @module
 */
import { resolve, sep } from "node:path";
import { bool, type FlagSpec, num, type ParsedArgs } from "./args.ts";

/** The default size limit of one referenced file, in MiB. */
export const DEFAULT_MAX_FILE_MIB = 64;
/** How long reading one referenced file may take. */
export const READ_TIMEOUT_MS = 30_000;

/** What a capture's references may read. */
export interface CaptureFileRules {
  /** Files outside the capture's folder too (`--allow-outside`). */
  allowOutside?: boolean;
  /** The largest file read, in bytes (default 64 MiB). */
  maxBytes?: number;
  /** How long one read may take (ms, default {@linkcode READ_TIMEOUT_MS}). */
  timeoutMs?: number;
}

/** The flags, spread into a command's flags. */
export const CAPTURE_FILE_FLAGS: Record<string, FlagSpec> = {
  "allow-outside": {
    type: "boolean",
    description: "Let a capture's file references read files outside the capture's folder",
  },
  "max-file-size": {
    type: "integer",
    value: "MIB",
    min: 1,
    max: 4096,
    default: DEFAULT_MAX_FILE_MIB,
    description: "Largest file a capture may reference, in MiB",
  },
};

/**
 * The rules the flags set.
 *
 * @param args parsed arguments
 * @returns the rules
 */
export function captureFileRules(args: ParsedArgs): CaptureFileRules {
  const mib = num(args, "max-file-size") ?? DEFAULT_MAX_FILE_MIB;
  return {
    maxBytes: mib * 2 ** 20,
    ...(bool(args, "allow-outside") ? { allowOutside: true } : {}),
  };
}

/** Folders whose files are the system's, never a capture's, even with --allow-outside. */
const SYSTEM = ["/proc", "/sys", "/dev"];

function inside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * A reader of a capture's references, relative to its folder, held to the rules.
 *
 * @param folder the capture's folder
 * @param rules what may be read
 * @returns `(relativePath) → bytes`, throwing an Error whose message says why a file is refused
 * @example
 * ```ts
 * const read = captureFileReader(Deno.cwd());
 * const refused = await read("../../../../etc/passwd").then(() => "", (e) => e.message);
 * if (!refused.includes("outside")) throw new Error(refused);
 * ```
 */
export function captureFileReader(
  folder: string,
  rules: CaptureFileRules = {},
): (relativePath: string) => Promise<Uint8Array> {
  const maxBytes = rules.maxBytes ?? DEFAULT_MAX_FILE_MIB * 2 ** 20;
  const timeoutMs = rules.timeoutMs ?? READ_TIMEOUT_MS;
  return async (rel) => {
    const base = await Deno.realPath(folder).catch(() => resolve(folder));
    const wanted = resolve(base, rel);
    if (!rules.allowOutside && !inside(wanted, base)) {
      throw new Error(`outside the capture's folder ${base} (pass --allow-outside to read it)`);
    }
    // where it really is (a symbolic link is followed, then held to the same rules)
    const real = await Deno.realPath(wanted);
    if (SYSTEM.some((s) => inside(real, s))) {
      throw new Error(`${real} is a system file, not a capture's`);
    }
    if (!rules.allowOutside && !inside(real, base)) {
      throw new Error(
        `a link to ${real}, outside the capture's folder ${base} (pass --allow-outside to read it)`,
      );
    }
    return await readRegularFile(real, maxBytes, timeoutMs);
  };
}

/** Reads a file known to be where it may be: a regular file, capped, within the timeout. */
async function readRegularFile(
  path: string,
  maxBytes: number,
  timeoutMs: number,
): Promise<Uint8Array> {
  const info = await Deno.stat(path);
  if (!info.isFile) {
    throw new Error(
      `not a regular file (${info.isDirectory ? "a directory" : "a device, FIFO or socket"})`,
    );
  }
  if (info.size > maxBytes) {
    throw new Error(
      `${info.size} bytes, over the limit of ${maxBytes / 2 ** 20} MiB per file ` +
        `(--max-file-size)`,
    );
  }
  const signal = AbortSignal.timeout(timeoutMs);
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path, { signal });
  } catch (err) {
    if (signal.aborted) throw new Error(`not read within ${timeoutMs / 1000} s`);
    throw err;
  }
  if (bytes.length > maxBytes) {
    throw new Error(`grew past the limit of ${maxBytes / 2 ** 20} MiB per file while read`);
  }
  return bytes;
}

/**
 * What is wrong with a path that is neither a regular file nor a folder, as a message's end.
 *
 * @param info the path's stat
 * @returns `is a device, not a file` (a FIFO, a socket), or undefined for a file or a folder
 */
export function notAFile(info: Deno.FileInfo): string | undefined {
  if (info.isFile || info.isDirectory) return undefined;
  if (info.isFifo) return "is a FIFO, not a file";
  if (info.isSocket) return "is a socket, not a file";
  return "is a device, not a file";
}

/**
 * Reads a file named on the command line (`replay FILE`, each file of a suite) or by a tool's
 * field (`cairn mcp`'s `trailFile`) by a capture's rules, wherever it is: a regular file only (a
 * device, FIFO or socket is refused before it is opened), at most `rules.maxBytes`, read within
 * the timeout.
 *
 * @param path the file
 * @param rules the size limit and timeout (`allowOutside` does not apply: the user named it)
 * @returns its bytes
 * @throws {Deno.errors.NotFound} when nothing is there
 * @throws {Deno.errors.IsADirectory} for a folder
 * @throws {Error} one line, `PATH: why`, for anything else it will not read
 * @example
 * ```ts
 * const refused = await readNamedFile("/dev/zero").then(() => "", (e) => e.message);
 * if (refused !== "/dev/zero: is a device, not a file") throw new Error(refused);
 * ```
 */
export async function readNamedFile(
  path: string,
  rules: CaptureFileRules = {},
): Promise<Uint8Array> {
  const maxBytes = rules.maxBytes ?? DEFAULT_MAX_FILE_MIB * 2 ** 20;
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (err) {
    throw named(path, err);
  }
  if (info.isDirectory) throw new Deno.errors.IsADirectory(`${path}: is a folder`);
  const what = notAFile(info);
  if (what) throw new Error(`${path}: ${what}`);
  try {
    return await readRegularFile(path, maxBytes, rules.timeoutMs ?? READ_TIMEOUT_MS);
  } catch (err) {
    throw named(path, err);
  }
}

/** A read's error as one line naming the file (a missing file or a folder stays as it is). */
function named(path: string, err: unknown): unknown {
  if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.IsADirectory) return err;
  // "Permission denied (os error 13): readfile '/x'" → its first part
  return new Error(`${path}: ${(err as Error).message.replace(/ \(os error \d+\).*$/s, "")}`);
}
