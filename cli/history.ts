/**
 * `cairn history SESSION`: a session's timeline (position, time, type, one-line summary), or
 * with `--at N` its state at global position N, extracting the screenshot to
 * `.cairn/blobs/<hash>.png` (beside the database). Without SESSION: the sessions in the log.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { bool, type CommandSpec, num, type ParsedArgs, str, UsageError } from "./args.ts";
import { MAX_SHEET_COLUMNS, sessionSheet } from "../engine/timeline/mod.ts";
import { DB_FLAGS, dbLabel, dbPath, filesDirOf, openStore, resolveStream } from "./context.ts";
import { InputError } from "./errors.ts";
import { snapshotAt } from "../engine/timeline/mod.ts";
import { NotFoundError, streamInfo } from "../events/mod.ts";
import type { EventStore } from "../events/mod.ts";
import {
  clip,
  listRuns,
  listSessions,
  RUN_KINDS,
  type RunSummary,
  type SessionState,
  type SessionSummary,
  stateAt,
  summarizeEvent,
} from "../engine/timeline/mod.ts";

/** Command spec of `cairn history`. */
export const spec: CommandSpec = {
  name: "history",
  summary: "List sessions, a session's timeline, or its state at a position (time travel)",
  positionals: ["[SESSION]"],
  flags: {
    at: {
      type: "integer",
      value: "N",
      min: 0,
      description: "Show the state after global position N (the timeline's first column)",
    },
    json: { type: "boolean", description: "Print JSON" },
    snapshot: {
      type: "boolean",
      description: "With --at N: print the snapshot (elements and refs) of the screen there",
    },
    sheet: {
      type: "string",
      value: "FILE.png",
      description:
        "Draw the timeline as a contact sheet of its screenshots (up to --at N; the last 60)",
    },
    columns: {
      type: "integer",
      value: "N",
      min: 1,
      max: MAX_SHEET_COLUMNS,
      description: "Tiles a row of --sheet",
      default: 4,
    },
    limit: {
      type: "integer",
      value: "N",
      min: 1,
      description: "List at most N events (without SESSION: the N newest sessions)",
    },
    ...DB_FLAGS,
  },
  details:
    `SESSION is the id of a session, playback or validation as printed (abc, pb-1248081a-c33),
its stream id (session-abc, playback-pb-…), or the start of exactly one (7f3a for
session-7f3a9c…). --at N takes a position of the whole log: before the
session's first event it exits 2 naming the session's positions; after its last event it
shows the final state. Without SESSION, the
runs in the log (sessions, playbacks, validations), oldest first: id, events, when it started,
what ran and how it ended.
Examples:
  cairn history                       # the sessions
  cairn history 7f3a
  cairn history 7f3a --at 42          # state at position 42, screenshot path
  cairn history 7f3a --at 42 --snapshot  # the screen's elements and refs there
  cairn history pb-1248081a-c33 --at 125  # a playback's state (its last action, screenshot)
  cairn history 7f3a --sheet run.png  # the screenshots in order, each with its step and action
  cairn history session-7f3a --json`,
};

const EXT: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/webp": "webp",
};

/**
 * Writes a state's screenshot blob to `blobs/` beside the database (once) and returns its path.
 *
 * @param store the store
 * @param state the state
 * @param options `dbPath`: the database file (`.cairn/cairn.db` → `.cairn/blobs/<hash>.png`)
 * @returns the file path, or null when the state has no screenshot or the blob is missing
 */
export async function extractScreenshot(
  store: EventStore,
  state: SessionState,
  options: { dbPath: string },
): Promise<string | null> {
  const db = options.dbPath;
  const ref = state.screen?.screenshot;
  if (!ref) return null;
  const dir = join(filesDirOf(db), "blobs");
  const path = join(dir, `${ref.hash}.${EXT[ref.mediaType] ?? "bin"}`);
  if (existsSync(path)) return path;
  try {
    const blob = await store.getBlob(ref.hash);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, blob.bytes);
    return path;
  } catch (err) {
    if (err instanceof NotFoundError) return null;
    throw err;
  }
}

/** Runs `cairn history`. */
export async function run(args: ParsedArgs): Promise<number> {
  const id = args.positionals[0];
  const at = num(args, "at");
  const limit = num(args, "limit");
  if (bool(args, "snapshot") && at === undefined) {
    throw new UsageError("history: --snapshot needs --at N (see cairn history --help)");
  }
  if (id === undefined && at !== undefined) {
    throw new UsageError("history: --at needs a SESSION (see cairn history --help)");
  }
  const store = openStore(args, { existing: true });
  try {
    if (id === undefined) return await listAll(store, args, limit);
    const streamId = await resolveStream(store, id, RUN_KINDS);
    const range = at === undefined ? undefined : await positionsOf(store, streamId, at);
    const sheet = str(args, "sheet");
    if (sheet !== undefined) return await writeSheet(store, streamId, sheet, at, args);
    if (at !== undefined) {
      const state = await stateAt(store, streamId, at);
      const screenshotPath = await extractScreenshot(store, state, { dbPath: dbPath(args) });
      const { firstPosition, lastPosition } = range!;
      if (bool(args, "snapshot")) {
        const text = await snapshotAt(store, state);
        if (text === null) {
          throw new InputError(
            `${streamId} has no screen hierarchy at position ${at} (its screens up to there carry none)`,
          );
        }
        console.log(text.trimEnd());
        return 0;
      }
      if (bool(args, "json")) {
        console.log(
          JSON.stringify(
            { streamId, at, firstPosition, lastPosition, state, screenshotPath },
            null,
            2,
          ),
        );
      } else {
        console.log(renderState(state, { streamId, at, screenshotPath, lastPosition }));
      }
      return 0;
    }
    const json = bool(args, "json");
    const rows = [];
    const enc = new TextEncoder();
    let printed = false;
    for await (const e of store.readStream(streamId, limit === undefined ? {} : { limit })) {
      const row = {
        position: e.position,
        recordedAt: e.meta.recordedAt,
        type: e.type,
        summary: summarizeEvent(e),
      };
      if (json) rows.push(row);
      else {
        printed = true;
        Deno.stdout.writeSync(
          enc.encode(
            `${String(row.position).padStart(6)}  ${row.recordedAt}  ${
              row.type.padEnd(22)
            }  ${row.summary}\n`,
          ),
        );
      }
    }
    if (!json ? !printed : rows.length === 0) {
      throw new NotFoundError(`No session ${streamId} in ${dbLabel(args)}`);
    }
    if (json) console.log(JSON.stringify({ streamId, events: rows }, null, 2));
    return 0;
  } finally {
    store.close();
  }
}

/**
 * The global positions of a session's first and last events, for `--at N`: positions are the
 * log's, so N before the session's first event names no state of it (bad input, exit 2).
 */
async function positionsOf(
  store: EventStore,
  streamId: string,
  at: number,
): Promise<{ firstPosition: number; lastPosition: number }> {
  const info = await streamInfo(store, streamId);
  if (!info) throw new InputError(`No session ${JSON.stringify(streamId)}`);
  const { firstPosition, lastPosition } = info;
  if (at < firstPosition) {
    throw new InputError(
      `--at ${at} is before this session's first event (position ${firstPosition}): ${streamId} spans positions ${firstPosition}–${lastPosition}`,
    );
  }
  return { firstPosition, lastPosition };
}

/** `--sheet FILE`: the session's screenshots up to `at` as one picture. */
async function writeSheet(
  store: EventStore,
  streamId: string,
  file: string,
  at: number | undefined,
  args: ParsedArgs,
): Promise<number> {
  const columns = num(args, "columns") ?? 4;
  const sheet = await sessionSheet(store, streamId, {
    columns,
    ...(at === undefined ? {} : { at }),
  });
  await Deno.mkdir(dirname(file), { recursive: true }); // as blaze end --out does
  await Deno.writeFile(file, sheet.png);
  const { frames, total } = sheet;
  const range = `@${frames[0]!.position} … @${frames.at(-1)!.position}`;
  const cut = total > frames.length ? `, the last ${frames.length} of ${total}` : "";
  console.log(`${file}: ${frames.length} screens (${range}${cut}), ${sheet.width}×${sheet.height}`);
  return 0;
}

/** `cairn history` without SESSION: the sessions, oldest first (`--limit N`: the N newest). */
async function listAll(
  store: EventStore,
  args: ParsedArgs,
  limit: number | undefined,
): Promise<number> {
  if (bool(args, "json")) {
    const all = await listSessions(store);
    const sessions = limit === undefined ? all : all.slice(-limit);
    const runs = await listRuns(store);
    const json = { sessions, runs: limit === undefined ? runs : runs.slice(-limit) };
    console.log(JSON.stringify(json, null, 2));
    return 0;
  }
  const all = await listRuns(store);
  const runs = limit === undefined ? all : all.slice(-limit);
  if (runs.length === 0) {
    console.log(`No sessions in ${dbLabel(args)} (import one with cairn ingest FILE)`);
    return 0;
  }
  console.log(renderRuns(runs));
  return 0;
}

/**
 * Renders the runs of the log for the terminal: id (as `cairn history ID` takes it), kind, events,
 * start time, what ran and how it ended.
 *
 * @param runs the runs
 * @returns the text, one line a run under a header
 */
export function renderRuns(runs: RunSummary[]): string {
  const width = Math.max(7, ...runs.map((r) => r.id.length));
  const lines = [`${"ID".padEnd(width)}  KIND        EVENTS  STARTED                   RUN`];
  for (const r of runs) {
    lines.push(
      `${r.id.padEnd(width)}  ${r.kind.padEnd(10)}  ${String(r.events).padStart(6)}  ${
        r.createdAt.padEnd(24)
      }  ${r.what}${r.outcome ? ` (${r.outcome})` : ""}`,
    );
  }
  return lines.join("\n");
}

/**
 * Renders a list of sessions for the terminal: id, events, start time, mode, platform, prompt.
 *
 * @param sessions the sessions
 * @returns the text, one line a session under a header
 */
export function renderSessions(sessions: SessionSummary[]): string {
  const width = Math.max(7, ...sessions.map((s) => s.sessionId.length));
  const lines = [`${"SESSION".padEnd(width)}  EVENTS  STARTED                   RUN`];
  for (const s of sessions) {
    const st = s.started;
    const run = st ? `${st.mode} ${st.platform}${st.prompt ? ` — ${clip(st.prompt)}` : ""}` : "";
    const end = s.ended ? ` (${s.ended.reason})` : "";
    lines.push(
      `${s.sessionId.padEnd(width)}  ${String(s.version).padStart(6)}  ${
        s.createdAt.padEnd(24)
      }  ${run}${end}`,
    );
  }
  return lines.join("\n");
}

/**
 * Renders a state for the terminal.
 *
 * @param s the state
 * @param options the stream, the position asked for, where the screenshot was written, and the
 *   position of the session's last event (a position after it shows the final state)
 * @returns the text
 */
export function renderState(
  s: SessionState,
  options: { streamId: string; at: number; screenshotPath: string | null; lastPosition?: number },
): string {
  const { streamId, at, screenshotPath, lastPosition } = options;
  const when = s.recordedAt ? `, ${s.recordedAt}` : "";
  const lines = [
    lastPosition !== undefined && at > lastPosition
      ? `${streamId} at position ${at}: after its last event (position ${s.position}${when}), the final state`
      : `${streamId} at position ${at} (last event ${s.position}${when})`,
  ];
  if (s.session) {
    lines.push(
      `session: ${s.session.mode} on ${s.session.platform}${
        s.session.prompt ? ` — ${s.session.prompt}` : ""
      }`,
    );
  }
  lines.push(
    s.step
      ? `step ${s.step.index + 1}: ${s.step.text}${s.step.ended ? " (ended)" : ""}` // from 1
      : "step: none yet",
  );
  if (s.screen) {
    lines.push(
      `screen @${s.screen.position}: ${
        s.screen.hierarchy
          ? `${s.screen.format} hierarchy ${s.screen.hierarchy.hash}`
          : "screenshot"
      }`,
    );
    lines.push(
      `screenshot: ${
        screenshotPath ??
          (s.screen.screenshot ? `${s.screen.screenshot.hash} (blob not stored)` : "none")
      }`,
    );
  } else lines.push("screen: none yet");
  lines.push(`url: ${s.url ?? "none"}`);
  const mem = Object.entries(s.memory);
  lines.push(
    `memory: ${mem.length ? mem.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(", ") : "empty"}`,
  );
  if (s.lastAction) {
    const a = s.lastAction.action;
    const r = s.lastAction.result;
    lines.push(
      `last action @${s.lastAction.position}: ${a.kind}${a.target?.ref ? ` ${a.target.ref}` : ""}${
        a.point ? ` at (${a.point.x}, ${a.point.y})` : ""
      } → ${r ? (r.ok ? `ok in ${r.durationMs} ms` : `failed: ${r.error ?? "error"}`) : "pending"}`,
    );
  } else if (s.lastPlaybackAction) {
    const p = s.lastPlaybackAction;
    const r = p.result;
    const what = r ? (r.description ?? r.action) : (p.resolved?.selector ?? "");
    lines.push(
      `last action @${p.position}: #${p.index} ${what}${
        p.resolved?.point ? ` at (${p.resolved.point.x}, ${p.resolved.point.y})` : ""
      } → ${
        r
          ? `${r.status} in ${r.durationMs} ms${r.error ? `: ${r.error}` : ""}${
            r.healedSelector ? ` (healed: ${r.healedSelector})` : ""
          }`
          : "pending"
      }`,
    );
  } else lines.push("last action: none");
  if (s.playback) {
    lines.push(
      `playback: ${s.playback.source.kind}, ${s.playback.actionsTotal} actions${
        s.playbackEnded ? `, ${s.playbackEnded.status} in ${s.playbackEnded.durationMs} ms` : ""
      }`,
    );
  }
  if (s.ended) lines.push(`ended: ${s.ended.reason}`);
  const c = s.counts;
  lines.push(
    `counts: ${c.events} events, ${c.actions} actions, ${c.screens} screens, ${c.failures} failures`,
  );
  return lines.join("\n");
}
