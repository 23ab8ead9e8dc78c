/**
 * The `--allow-file-urls` flag of the commands that play a run in a browser on the user's own
 * machine (`replay`, `validate`, `record`, `blaze start`, `mcp`): the only way a run opens `file:` (and `data:`) pages. Without
 * it, and always over HTTP, a run opens http(s) pages and about:blank only
 * (`drivers/navigation_guard.ts`). Private to `cli/`.
 *
 * @module
 */
import { bool, type FlagSpec, type ParsedArgs } from "./args.ts";

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
