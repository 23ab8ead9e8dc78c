/**
 * The shape every CLI command module has: a spec (flags, help) and a `run` that returns the
 * exit code. `main.ts` loads a command's module only when that command runs.
 *
 * @module
 */
import type { CommandSpec, ParsedArgs } from "./args.ts";

/** A CLI command module (`cli/<name>.ts`). */
export interface CommandModule {
  spec: CommandSpec;
  /** Runs the command; resolves to the process exit code. */
  run(args: ParsedArgs): Promise<number>;
}
