/**
 * Test helpers for the `cairn blaze` CLI: run one subcommand as its own process, and check
 * whether the background daemon is still alive.
 *
 * @module
 */

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** What a CLI process printed and how it exited. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `cairn blaze --db DB ARGS…` in a new process.
 *
 * @param db the event log file
 * @param args the subcommand and its arguments
 * @returns exit code and output
 */
export async function blazeCli(db: string, ...args: string[]): Promise<CliResult> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", MAIN, "blaze", "--db", db, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

/** Whether a process is still running. */
export function alive(pid: number): boolean {
  try {
    Deno.kill(pid, "SIGCONT");
    return true;
  } catch {
    return false;
  }
}
