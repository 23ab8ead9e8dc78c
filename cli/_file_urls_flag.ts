/**
 * The `--allow-file-urls` flag of the commands that play a run in a browser on the user's own
 * machine (`replay`, `validate`, `record`, `blaze start`, `mcp`): the only way a run opens `file:` (and `data:`) pages. Without
 * it, and always over HTTP, a run opens http(s) pages and about:blank only
 * (`drivers/navigation_guard.ts`). Private to `cli/`.
 *
 * @module
 */
import { bool, type FlagSpec, type ParsedArgs } from "./args.ts";
import { InputError } from "./errors.ts";
import { unsafeNavigation } from "../drivers/mod.ts";

/** The flag's spec, spread into a command's flags. */
export const FILE_URLS_FLAG: Record<string, FlagSpec> = {
  "allow-file-urls": {
    type: "boolean",
    description:
      "Let the run open local file: (and data:) pages; without it only http(s) pages and about:blank",
  },
};

/**
 * The driver option the flag sets.
 *
 * @param args parsed arguments
 * @returns `{ localFiles: true }` when given, else `{}`
 */
export function fileUrlsOption(args: ParsedArgs): { localFiles?: true } {
  return bool(args, "allow-file-urls") ? { localFiles: true } : {};
}

/**
 * The header a `blaze start --allow-file-urls` sends its daemon (behind the daemon's token): that
 * session's browser may open `file:` and `data:` pages. Without it, http(s) and about:blank only.
 */
export const LOCAL_FILES_HEADER = "x-cairn-allow-file-urls";

/**
 * Checks a command's `--url` (the page `validate` opens): an http(s) url; a local `file:` (or
 * `data:`) page only with `--allow-file-urls`, as the run's browser would take it.
 *
 * @param url the flag's value
 * @param args parsed arguments (`--allow-file-urls`)
 * @throws {InputError} `--url: …` naming the flag a file: url needs, or what was expected
 */
export function checkUrlFlag(url: string, args: ParsedArgs): void {
  const scheme = URL.canParse(url) ? new URL(url).protocol : undefined;
  if (scheme === "http:" || scheme === "https:") return;
  if (scheme === "file:" || scheme === "data:") {
    const unsafe = unsafeNavigation(url, fileUrlsOption(args));
    if (unsafe) throw new InputError(`--url: ${unsafe}`);
    return;
  }
  const local = bool(args, "allow-file-urls") ? " (or a file: or data: url)" : "";
  throw new InputError(`--url: expected an http(s) url${local}, got ${JSON.stringify(url)}`);
}
