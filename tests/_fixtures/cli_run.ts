/**
 * Running the CLI as a user does, for tests: `deno run -A main.ts …` in a child process, and the
 * small helpers CLI tests share (not a test itself).
 *
 * @module
 */
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";

/** The checkout's root (where main.ts is). */
export const ROOT: string = new URL("../../", import.meta.url).pathname;

/** What a CLI run printed and its exit code. */
export interface CliOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `cairn ARGS…` from the checkout's root, without colours.
 *
 * @param args the arguments after `cairn`
 * @param env more environment variables
 * @returns its exit code and output
 */
export async function cairn(args: string[], env: Record<string, string> = {}): Promise<CliOutput> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", `${ROOT}main.ts`, ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...env },
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** A `cairn serve` child process that said where it listens. */
export interface ServeChild {
  child: Deno.ChildProcess;
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** Everything it writes to stderr, once it has exited. */
  stderr: Promise<string>;
}

/**
 * Starts `cairn serve --port 0 ARGS…` (no `CAIRN_TOKEN` unless `env` sets one) and waits for
 * the line that names its address. The caller stops the child.
 *
 * @param args more arguments after `serve --port 0`
 * @param env more environment variables
 * @param cwd the folder it runs in (its `.cairn/screenshots` go there; default this process's)
 * @returns the child, its address and its stderr
 * @throws {Error} with what it printed when it exits before naming an address
 */
export async function startServe(
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
): Promise<ServeChild> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", "--no-check", `${ROOT}main.ts`, "serve", "--port", "0", ...args],
    env: { CAIRN_TOKEN: "", ...env },
    ...(cwd ? { cwd } : {}),
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  await reader.cancel();
  const url = out.match(/http:\/\/127\.0\.0\.1:\d+/)?.[0];
  if (url === undefined) {
    await child.status;
    throw new Error(`cairn serve did not start: ${out}${await stderr}`);
  }
  return { child, url, stderr };
}

/**
 * Maps `items` through `fn`, at most `limit` at a time, keeping the order.
 *
 * @param items the inputs
 * @param limit how many run at once
 * @param fn the work
 * @returns the results in the order of `items`
 */
export async function pool<T, R>(
  items: readonly T[],
  limit: number,
  fn: (t: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * The head position of a store file (opened and closed again).
 *
 * @param db the file
 * @returns its last position
 */
export async function headOf(db: string): Promise<number> {
  const store = SqliteEventStore.open(db);
  try {
    return await store.headPosition();
  } finally {
    store.close();
  }
}

/**
 * Pids of the processes whose command line names a user-data-dir under `dir` (the Chromium a
 * child launched with `TMPDIR=dir`).
 *
 * @param dir the folder the profiles were made in
 * @returns the pids
 */
export async function chromiumUnder(dir: string): Promise<number[]> {
  const pids: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const cmdline = await Deno.readTextFile(`/proc/${entry.name}/cmdline`).catch(() => "");
    const args = cmdline.split("\0");
    if (args.some((a) => a.startsWith(`--user-data-dir=${dir}/`))) pids.push(Number(entry.name));
  }
  return pids;
}

/**
 * A test's clean-up after a `cairn` child it may have left running: the child SIGKILLed (when it
 * still runs) and awaited, then every Chromium launched under `dir` killed too.
 *
 * @param child the child process
 * @param dir the `TMPDIR` its browsers' profiles were made in
 */
export async function killChildAndChromium(child: Deno.ChildProcess, dir: string): Promise<void> {
  try {
    child.kill("SIGKILL");
  } catch { /* exited */ }
  await child.status;
  await killChromiumUnder(dir);
}

/**
 * Kills every Chromium whose profile is under `dir` (see {@linkcode chromiumUnder}).
 *
 * @param dir the folder the profiles were made in
 */
export async function killChromiumUnder(dir: string): Promise<void> {
  for (const pid of await chromiumUnder(dir)) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* exited meanwhile */ }
  }
}
