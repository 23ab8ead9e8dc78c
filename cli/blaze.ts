/**
 * `cairn blaze <tool> [key=value…]`: the tools an agent blazes with, each call recorded.
 * `blaze start` launches a background daemon (one browser that lives across calls, its
 * HTTP API on 127.0.0.1), one per database; every other subcommand calls that API; `blaze end`
 * writes the recording files and stops the daemon when it was the last live session.
 *
 * @module
 */
import { bool, type CommandSpec, list, type ParsedArgs, str, UsageError } from "./args.ts";

import { dirname, join, resolve } from "node:path";
import { checkStorePath, DB_FLAGS, dbLabel, dbPath, filesDirOf, matchStream } from "./context.ts";
import { InputError } from "./errors.ts";
import { type DaemonState, readState, statePath, updateState } from "./_blaze_state.ts";
import { processRuns, recoverDeadDaemon } from "./_blaze_recover.ts";
import { withStartLock } from "./_blaze_lock.ts";
import { isPostgresUrl } from "../events/mod.ts";
import { type AndroidStart, androidStartUrl } from "../drivers/android/mod.ts";
import { ANDROID_FLAGS, androidStartFromArgs } from "./_android_flags.ts";
import type { SessionFiles } from "./_session_files.ts";
import { FILE_URLS_FLAG, fileUrlsOption, LOCAL_FILES_HEADER } from "./_file_urls_flag.ts";
import { unsafeNavigation } from "../drivers/mod.ts";

/** The command's flags and help. */
export const spec: CommandSpec = {
  name: "blaze",
  summary: "Drive a browser with recorded agent tools (start, snapshot, tap, type, …, end)",
  positionals: ["TOOL", "[PARAMS...]"],
  flags: {
    url: { type: "string", value: "URL", description: "start: the page to open" },
    platform: {
      type: "string",
      choices: ["web", "android"],
      description: "start: web (Chrome) or android (Appium UiAutomator2; see docs/android.md)",
    },
    ...ANDROID_FLAGS,
    ...FILE_URLS_FLAG,
    prompt: { type: "string", value: "TEXT", description: "start: what the agent was asked" },
    memory: {
      type: "list",
      value: "NAME=VALUE",
      description: "start: initial memory (repeatable)",
    },
    "secret-memory": {
      type: "list",
      value: "NAME=VALUE",
      description:
        "start: initial memory that is a secret: stored as [redacted], memory get gives it (repeatable)",
    },
    bounds: { type: "boolean", description: "snapshot: add each element's bounds" },
    offscreen: { type: "boolean", description: "snapshot: include off-screen elements" },
    depth: {
      type: "integer",
      value: "N",
      min: 1,
      description: "snapshot: show at most N levels",
    },
    root: { type: "string", value: "REF", description: "snapshot: only the subtree of REF" },
    marks: {
      type: "boolean",
      description: "screenshot: draw the snapshot's refs on it (set-of-mark)",
    },
    diff: {
      type: "boolean",
      description: "snapshot: only what changed since the previous snapshot",
    },
    reason: {
      type: "string",
      value: "TEXT",
      description:
        "end: why the run ended (completed, failed or clarification); any action: why the agent takes it (stored with the decision, shown in the viewer)",
    },
    out: {
      type: "string",
      alias: "o",
      value: "DIR",
      description:
        "end: folder for the recording_v1 (web) and capture files (default: exports/ beside the database); screenshot: the PNG file (default: screenshots/ beside it)",
    },
    session: {
      type: "string",
      value: "ID",
      description: "The session to target, or a unique start of its id (default: last started)",
    },
    step: {
      type: "string",
      value: "TEXT",
      description: "Any action: the NL step it serves (starts that step when new)",
    },
    json: { type: "boolean", description: "Print the tool result as JSON" },
    ...DB_FLAGS,
  },
  details: `
Tools:
  start --url URL --prompt "…"          open the url in a new browser and start recording
  snapshot [--bounds] [--offscreen] [--depth N] [--root REF] [--diff]
                                        the screen as text with refs such as [ref=y778]
  tap ref=y778 | x=120,y=480            tap an element of the latest snapshot or a point
                                        (any action: --reason "…" says why; stored, shown in the viewer)
  type ref=k42 text="alice@example.com" type into a field (replacing its value; clear=false appends)
  press key=Enter                       press a key (Enter, Tab, Escape, ArrowDown, Back, …)
  scroll [ref=r74] direction=down       scroll the page or an element
  navigate url=https://…                open a url in the current tab
  select ref=c12 value="Express"        pick an option of a <select> (by value or text); tap ref=<option> does the same
  check ref=b7 [checked=false]          tick (or untick) a checkbox, radio or switch
  assert ref=y778 visible | text="…"    check an element is visible or has a text
  read ref=y778 storeAs=total           read an element's text into memory
  memory set name=value [secret] | get name
                                        write or read memory (secret: stored as [redacted])
  screenshot [--marks] [--out FILE]     a PNG of the page (--marks: the refs drawn on it)
  step "Add two coffees"                start the next natural-language step
                                        (or --step TEXT on any action; -o is --out)
  end [--reason completed|failed|clarification] [--out DIR]

Each call is recorded (screen before, decision, result, memory) to the session's stream.
Exit code: 0 ok, 1 the tool failed (assertion, missing ref), 2 bad input.`,
};

/**
 * Parses a tool's words into parameters: `key=value` pairs, bare words as `true`, and the
 * special forms of `memory set|get`, `step TEXT` and `x=1,y=2`.
 *
 * @param tool the tool name
 * @param words the words after it
 * @returns the parameters
 * @throws {UsageError} when a word does not fit
 * @example
 * ```ts
 * import { toolParams } from "./blaze.ts";
 * const p = toolParams("tap", ["x=120,y=480"]);
 * if (p.x !== "120" || p.y !== "480") throw new Error();
 * ```
 */
export function toolParams(tool: string, words: readonly string[]): Record<string, unknown> {
  if (tool === "step") {
    const text = words.join(" ").replace(/^text=/, "");
    if (!text) throw new UsageError('blaze step: needs the step text, e.g. blaze step "Sign in"');
    return { text };
  }
  const params: Record<string, unknown> = {};
  let rest = [...words];
  if (tool === "memory") {
    const op = rest.shift();
    if (op !== "set" && op !== "get") {
      throw new UsageError("blaze memory: use memory set name=value or memory get name");
    }
    params.op = op;
    if (op === "get") {
      const name = rest.shift()?.replace(/^name=/, "");
      if (!name) throw new UsageError("blaze memory get: needs a name");
      params.name = name;
    } else {
      const pair = rest.shift() ?? "";
      const eq = pair.indexOf("=");
      if (eq <= 0) throw new UsageError("blaze memory set: needs name=value");
      params.name = pair.slice(0, eq);
      params.value = pair.slice(eq + 1);
    }
    rest = rest.filter(Boolean);
  }
  for (const word of rest) {
    const point = word.match(/^x=(-?[\d.]+),y=(-?[\d.]+)$/);
    if (point) {
      params.x = point[1];
      params.y = point[2];
      continue;
    }
    const eq = word.indexOf("=");
    if (eq > 0) params[word.slice(0, eq)] = word.slice(eq + 1);
    else if (/^[A-Za-z]\w*$/.test(word)) params[word] = true;
    else throw new UsageError(`blaze ${tool}: cannot read ${JSON.stringify(word)} (use key=value)`);
  }
  return params;
}

/** Why a run ended: what `end --reason` takes. */
const END_REASONS: readonly string[] = ["completed", "failed", "clarification"];

/** Flags that only some tools take: a flag given to another tool is a usage error. */
const TOOL_FLAGS: Record<string, readonly string[]> = {
  bounds: ["snapshot"],
  depth: ["snapshot"],
  root: ["snapshot"],
  diff: ["snapshot"],
  offscreen: ["snapshot", "screenshot"],
  marks: ["screenshot"],
  out: ["screenshot", "end"],
  reason: [
    "end",
    ...["tap", "type", "press", "scroll", "navigate", "assert", "read", "select", "check"],
    "memory",
  ],
  url: ["start"],
  prompt: ["start"],
  memory: ["start"],
  "secret-memory": ["start"],
  "allow-file-urls": ["start"],
  platform: ["start"],
  ...Object.fromEntries(Object.keys(ANDROID_FLAGS).map((k) => [k, ["start"]])),
};

/**
 * `-o` is `--out` in every command. It was blaze's `--step` once: a `-o TEXT` that reads as a
 * step (given to a tool that writes no file, to `screenshot` without a `.png` name, or to `end`
 * with a space in it) is refused, naming `--step`, rather than written to a file of that name.
 */
function checkShortOut(tool: string, args: ParsedArgs): void {
  const value = str(args, "out");
  if (!args.short?.includes("out") || value === undefined) return;
  const step = !TOOL_FLAGS.out!.includes(tool) ||
    (tool === "screenshot" && !/\.png$/i.test(value)) || (tool === "end" && /\s/.test(value));
  if (!step) return;
  throw new UsageError(
    `blaze ${tool}: -o is --out (the ${
      tool === "screenshot" ? "PNG file" : tool === "end" ? "folder" : "file or folder"
    } a command writes, as in every command); for the step an action serves, use --step ${
      JSON.stringify(value)
    }`,
  );
}

/** Refuses a flag the tool does not take (`tap --diff`), which would be ignored. */
function checkToolFlags(tool: string, args: ParsedArgs): void {
  for (const [flag, tools] of Object.entries(TOOL_FLAGS)) {
    const v = args.flags[flag];
    const given = v !== undefined && v !== false && !(Array.isArray(v) && v.length === 0);
    if (given && !tools.includes(tool)) {
      throw new UsageError(`blaze ${tool}: --${flag} is for ${tools.join(" and ")} only`);
    }
  }
}

/**
 * Runs `cairn blaze`.
 *
 * @param args parsed arguments
 * @returns the exit code
 */
export async function run(args: ParsedArgs): Promise<number> {
  const [tool, ...words] = args.positionals;
  const db = dbPath(args);
  if (isPostgresUrl(db)) {
    // the daemon keeps its state file and lock beside a log file
    throw new InputError(
      `blaze: the command-line blaze keeps its browser daemon beside a log file; on PostgreSQL (${
        dbLabel(args)
      }) drive blaze sessions through a cairn serve node's HTTP API (/v1/blaze/…)`,
    );
  }
  // a directory, another program's file, a damaged or read-only one: refused before any daemon
  // starts (every tool records events)
  checkStorePath(db, dbLabel(args), { writes: true });
  if (tool === "__daemon") {
    const { runDaemon } = await import("./_blaze_daemon.ts");
    await runDaemon(db);
    return 0;
  }
  if (tool) checkShortOut(tool, args);
  if (tool) checkToolFlags(tool, args);
  if (tool === "start") return await start(args, db);
  const state = await liveState(db);
  if (!state) {
    throw new InputError(
      `No blaze session is running for ${db} (start one with cairn blaze start)`,
    );
  }
  const params = toolParams(tool!, words);
  const sessionId = await targetSession(state, db, str(args, "session"));
  if (tool === "snapshot") {
    if (bool(args, "bounds")) params.bounds = true;
    if (bool(args, "offscreen")) params.offscreen = true;
    if (bool(args, "diff")) params.diff = true;
    const depth = args.flags.depth;
    if (typeof depth === "number") params.depth = depth;
    const root = str(args, "root");
    if (root) params.root = root;
  }
  if (tool === "screenshot") {
    if (bool(args, "marks")) params.marks = true;
    if (bool(args, "offscreen")) params.offscreen = true;
  }
  const stepText = str(args, "step");
  if (stepText && tool !== "step") params.step = stepText;
  const reason = str(args, "reason");
  if (reason !== undefined) {
    if (tool === "end" && !END_REASONS.includes(reason)) {
      throw new UsageError(
        `blaze end: --reason must be one of ${END_REASONS.join(", ")}, got ${
          JSON.stringify(reason)
        }`,
      );
    }
    params.reason = reason;
  }
  const res = await call(state, db, `/v1/blaze/sessions/${sessionId}/tools/${tool}`, params);
  const body = await res.json() as Record<string, unknown>;
  if (!res.ok) return failed(res.status, body);
  if (bool(args, "json")) console.log(JSON.stringify(body, null, 2));
  else console.log(String(body.output ?? ""));
  if (tool === "screenshot" && body.ok && typeof body.value === "string") {
    // without --out: beside the database, as every file a command writes
    const file = str(args, "out") ??
      join(filesDirOf(db), "screenshots", `screenshot-${body.value.slice(0, 12)}.png`);
    const blob = await call(state, db, `/v1/blobs/${body.value}`);
    if (!blob.ok) return failed(blob.status, await blob.json());
    await Deno.mkdir(dirname(resolve(file)), { recursive: true });
    await Deno.writeFile(file, new Uint8Array(await blob.arrayBuffer()));
    console.log(`Wrote ${file}`);
  }
  if (tool === "end") {
    const outDir = str(args, "out") ?? join(filesDirOf(db), "exports");
    const { files, skipped } = await exportAndStop(state, db, sessionId, outDir);
    for (const f of files) console.log(`Wrote ${f}`);
    if (skipped) console.log(skipped);
  }
  return body.ok === false ? 1 : 0;
}

/**
 * The session a call targets: `--session` (a live session's id or its unique start; an ended
 * session's id, which the daemon answers with 409), else the last one started.
 *
 * @throws {InputError} when `--session` names no session or several, or none is targeted
 */
async function targetSession(
  state: DaemonState,
  db: string,
  given: string | undefined,
): Promise<string> {
  const live = await liveSessions(state, db);
  if (given === undefined) {
    if (state.sessionId) return state.sessionId;
    if (live.length === 0) throw new InputError("No blaze session is running (cairn blaze start)");
    throw new InputError(
      `No blaze session is targeted (the last one started has ended); live sessions: ${
        live.join(", ")
      } (pick one with --session)`,
    );
  }
  const id = given.replace(/^session-/, "");
  if (live.includes(id)) return id;
  const starts = live.filter((s) => s.startsWith(id));
  if (starts.length === 1) return starts[0]!;
  if (starts.length > 1) {
    throw new InputError(
      `--session ${JSON.stringify(given)} is the start of ${starts.length} live sessions (${
        starts.join(", ")
      }): give more of the id`,
    );
  }
  // not live: an ended session (the daemon answers 409), or none at all
  const { SqliteEventStore } = await import("../events/sqlite_event_store.ts");
  const store = SqliteEventStore.open(db);
  try {
    const streamId = await matchStream(store, id);
    if (streamId?.startsWith("session-")) return streamId.slice("session-".length);
  } finally {
    store.close();
  }
  throw new InputError(`--session: no blaze session ${JSON.stringify(given)} in ${db}`);
}

/** Ids of the daemon's live sessions, oldest first. */
async function liveSessions(state: DaemonState, db: string): Promise<string[]> {
  const res = await call(state, db, "/v1/blaze/sessions");
  const body = await res.json() as { sessions?: { sessionId: string }[] };
  return (body.sessions ?? []).map((s) => s.sessionId);
}

async function start(args: ParsedArgs, db: string): Promise<number> {
  const android = androidStart(args);
  const url = str(args, "url") ?? (android ? androidStartUrl(android) : undefined);
  const prompt = str(args, "prompt");
  if (!url) {
    throw new UsageError(
      `blaze start: --url is required${android ? " (or --app-package on android)" : ""}`,
    );
  }
  if (!prompt) throw new UsageError("blaze start: --prompt is required");
  // the rule of every browser run: a local file only with --allow-file-urls (refused before a
  // daemon starts; the daemon's browser holds to it as well, redirects included)
  const localFiles = fileUrlsOption(args);
  const unsafe = android ? undefined : unsafeNavigation(url, localFiles);
  if (unsafe) throw new InputError(`blaze start: ${unsafe}`);
  const memory: Record<string, string> = {};
  for (const pair of list(args, "memory")) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`blaze start: --memory needs NAME=VALUE, got ${pair}`);
    memory[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const secretMemory: Record<string, string> = {};
  for (const pair of list(args, "secret-memory")) {
    const eq = pair.indexOf("=");
    // the entry may be the secret itself: it is not echoed
    if (eq <= 0) throw new UsageError("blaze start: --secret-memory needs NAME=VALUE");
    const name = pair.slice(0, eq);
    if (Object.hasOwn(memory, name)) {
      throw new UsageError(`blaze start: ${name} is in both --memory and --secret-memory`);
    }
    secretMemory[name] = pair.slice(eq + 1);
  }
  // one start at a time per database: two at once would each launch a daemon
  return await withStartLock(db, async () => {
    const running = await liveState(db);
    const state = running ?? await spawnDaemon(db);
    const res = await call(state, db, "/v1/blaze/sessions", {
      url,
      prompt,
      ...(Object.keys(memory).length ? { memory } : {}),
      ...(Object.keys(secretMemory).length ? { secretMemory } : {}),
      ...(android ? { platform: "android", android } : {}),
    }, localFiles.localFiles ? { [LOCAL_FILES_HEADER]: "1" } : {});
    const body = await res.json() as Record<string, unknown>;
    if (!res.ok) {
      if (!running) await stopDaemon(state); // a daemon started for nothing does not linger
      return failed(res.status, body);
    }
    await updateState(db, state.pid, (s) => ({ ...s, sessionId: String(body.sessionId) }));
    console.log(`Session ${body.sessionId} started at ${url}`);
    if (typeof body.warning === "string") console.error(`cairn blaze: warning: ${body.warning}`);
    return 0;
  });
}

/** The Android part of `blaze start`, or undefined unless `--platform android`. */
function androidStart(args: ParsedArgs): AndroidStart | undefined {
  return str(args, "platform") === "android"
    ? androidStartFromArgs(args, "blaze start")
    : undefined;
}

function failed(status: number, body: Record<string, unknown>): number {
  const err = body.error as { code?: string; message?: string } | undefined;
  console.error(`cairn blaze: ${err?.message ?? `HTTP ${status}`}`);
  return status === 400 ? 2 : 1;
}

function request(
  state: DaemonState,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`http://127.0.0.1:${state.port}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${state.token}`,
      "content-type": "application/json",
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/**
 * Calls the daemon's API. When the connection fails, the error names the daemon; when the
 * daemon is gone, its sessions are ended as interrupted and its browsers killed first.
 */
async function call(
  state: DaemonState,
  db: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  try {
    return await request(state, path, body, headers);
  } catch (err) {
    const why = err instanceof Error ? err.cause ?? err.message : String(err);
    if (processRuns(state.pid, DAEMON_WORD)) {
      throw new Error(
        `The blaze daemon (pid ${state.pid}, port ${state.port}) did not answer: ${why}`,
      );
    }
    const done = await recoverDeadDaemon(db, state);
    throw new Error(
      `The blaze daemon (pid ${state.pid}) died during the call; ${done.join("; ")}`,
    );
  }
}

/** A word of the daemon's command line (`cairn blaze __daemon --db …`). */
const DAEMON_WORD = "__daemon";

/**
 * The daemon's state when it answers for this database. A daemon that is gone is cleaned up
 * after (its open sessions end as interrupted, its browsers are killed), saying so on stderr.
 *
 * @throws {InputError} when the state file names a daemon of another database
 * @throws {Error} when the daemon runs but does not answer
 */
async function liveState(db: string): Promise<DaemonState | undefined> {
  const state = await readState(db);
  if (!state) return undefined;
  let info: { db?: string } | undefined;
  try {
    const res = await request(state, "/daemon");
    if (res.ok) info = await res.json();
    else await res.body?.cancel();
  } catch {
    // not answering
  }
  if (info) {
    if (info.db !== resolve(db)) {
      throw new InputError(
        `${statePath(db)} names the blaze daemon (pid ${state.pid}) of ${info.db}, not of ${
          resolve(db)
        }: use --db ${info.db}, or stop that daemon`,
      );
    }
    return state;
  }
  if (processRuns(state.pid, DAEMON_WORD)) {
    throw new Error(
      `The blaze daemon (pid ${state.pid}) runs but does not answer on port ${state.port}: ` +
        `stop it (kill ${state.pid}) and try again`,
    );
  }
  for (const line of await recoverDeadDaemon(db, state)) console.error(`cairn blaze: ${line}`);
  return undefined;
}

async function spawnDaemon(db: string): Promise<DaemonState> {
  const main = new URL("../main.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, "blaze", "__daemon", "--db", db],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  child.unref();
  for (let i = 0; i < 300; i++) {
    const state = await readState(db);
    if (state?.pid === child.pid) return state;
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    child.kill("SIGTERM");
  } catch { /* already gone */ }
  throw new Error(`The blaze daemon did not start within 15 s (state file ${statePath(db)})`);
}

async function exportAndStop(
  state: DaemonState,
  db: string,
  sessionId: string,
  out: string,
): Promise<SessionFiles> {
  const { SqliteEventStore } = await import("../events/sqlite_event_store.ts");
  const { writeSessionFiles } = await import("./_session_files.ts");
  const store = SqliteEventStore.open(db);
  try {
    return await writeSessionFiles(store, sessionId, out);
  } finally {
    store.close();
    // the daemon stops with its last session: other agents' sessions keep running
    const live = await liveSessions(state, db).catch(() => []);
    if (live.length === 0) await stopDaemon(state);
    else {
      await updateState(db, state.pid, (s) => {
        const { sessionId: target, ...rest } = s;
        return target === sessionId ? rest : s;
      });
    }
  }
}

async function stopDaemon(state: DaemonState): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${state.port}/daemon/shutdown`, {
    method: "POST",
    headers: { authorization: `Bearer ${state.token}` },
  }).catch(() => undefined);
  await res?.body?.cancel();
  // wait (bounded) for the daemon to exit so its browser is gone when the command returns. Its
  // stop ends a hung call by force (5 s), closes the browser (killed after 3 s) and removes its
  // state file: 5 s could end before that on a busy machine, and the command returned with the
  // daemon still running
  const deadline = performance.now() + DAEMON_EXIT_WAIT_MS;
  while (performance.now() < deadline) {
    try {
      Deno.kill(state.pid, "SIGCONT");
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** How long `end` waits for the daemon it stopped to exit. */
const DAEMON_EXIT_WAIT_MS = 30_000;
