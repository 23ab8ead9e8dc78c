/**
 * `cairn export SESSION --format events|recording_v1|capture [--out FILE]`: writes a session
 * back as a file that `cairn ingest` reads again to the same events, but for what the format
 * has no place for (docs/capture.md "Round trip").
 *
 * @module
 */
import { join } from "node:path";
import { type CommandSpec, type ParsedArgs, str, UsageError } from "./args.ts";
import { DB_FLAGS, openStore, resolveStream } from "./context.ts";
import { prepareOutFile } from "./_out_file.ts";
import { InputError } from "./errors.ts";
import { type EventStore, NotFoundError } from "../events/mod.ts";
import type { StoredEvent } from "../events/mod.ts";
import { eventsToCapture } from "../engine/formats/mod.ts";
import { blobRefsIn, formatEventsJsonl } from "../engine/formats/mod.ts";
import { eventsToRecording, recordingFileName } from "../engine/formats/mod.ts";
import {
  isTrailFormat,
  renderTrailExport,
  TRAIL_EXPORT_FORMATS,
  type TrailExportFormat,
} from "./_export_trail.ts";

/** The formats `cairn export` writes: a session's, then a trail's (another runner's test). */
export const EXPORT_FORMATS = [
  "events",
  "recording_v1",
  "capture",
  ...TRAIL_EXPORT_FORMATS,
] as const;
export type ExportFormat = typeof EXPORT_FORMATS[number];
/** The formats that hold a session itself (the others are a trail's, for another runner). */
export type SessionExportFormat = Exclude<ExportFormat, TrailExportFormat>;
/** {@linkcode SessionExportFormat}'s values: the exports that ingest back as a session. */
export const SESSION_EXPORT_FORMATS: readonly SessionExportFormat[] = [
  "events",
  "recording_v1",
  "capture",
];

/** A session read back: its events and every blob they reference. */
export interface LoadedSession {
  sessionId: string;
  events: StoredEvent[];
  blobs: Map<string, Uint8Array>;
}

/**
 * Reads a session's events and the blobs they reference.
 *
 * @param store the event store
 * @param session a session id (`abc…`) or stream id (`session-abc…`)
 * @returns the events in order and the blob bytes by hash
 * @throws {NotFoundError} when the session has no events
 * @throws {InputError} naming the session and the position of an event whose blob the database
 *   does not hold (exit 2: the database is the command's input, and it is at fault)
 */
export async function loadSession(store: EventStore, session: string): Promise<LoadedSession> {
  const sessionId = session.startsWith("session-") ? session.slice("session-".length) : session;
  const events: StoredEvent[] = [];
  for await (const e of store.readStream(`session-${sessionId}`)) events.push(e);
  if (events.length === 0) throw new NotFoundError(`No session ${JSON.stringify(sessionId)}`);
  const blobs = new Map<string, Uint8Array>();
  for (const e of events) {
    for (const ref of blobRefsIn(e.data)) {
      if (blobs.has(ref.hash)) continue;
      try {
        blobs.set(ref.hash, (await store.getBlob(ref.hash)).bytes);
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
        // the log took an event whose blob was never stored: the file would not read back in
        throw new InputError(
          `session-${sessionId}: the ${e.type} at position ${e.position} references blob ${ref.hash}, which is not in the database`,
        );
      }
    }
  }
  return { sessionId, events, blobs };
}

/** A rendered export: the text and the file name it gets in a directory. */
export interface RenderedSession {
  text: string;
  /** The `recording_v1` file name `vw-ax-{mode}-{id}-{yyyyMMdd-HHmmss}.json` for recordings. */
  fileName: string;
}

/**
 * Renders a loaded session in an export format.
 *
 * @param session the loaded session
 * @param format the output format
 * @returns the file text and its default file name
 */
export function renderSession(
  session: LoadedSession,
  format: SessionExportFormat,
): RenderedSession {
  switch (format) {
    case "events":
      return {
        text: formatEventsJsonl(session.events, session.blobs),
        fileName: `${session.sessionId}.events.jsonl`,
      };
    case "recording_v1": {
      // the `recording_v1` recorder records browser tabs: a device session would come back as web
      const started = session.events.find((e) => e.type === "SessionStarted");
      const platform = (started?.data as { platform?: string } | undefined)?.platform;
      if (platform !== undefined && platform !== "web") {
        throw new UsageError(
          `recording_v1 holds web sessions and ${session.sessionId} is ${platform}: export it --format capture or events`,
        );
      }
      const rec = eventsToRecording(session.events, { blobs: session.blobs });
      return { text: JSON.stringify(rec, null, 2) + "\n", fileName: recordingFileName(rec) };
    }
    case "capture":
      return {
        text: JSON.stringify(eventsToCapture(session.events, { blobs: session.blobs }), null, 2) +
          "\n",
        fileName: `${session.sessionId}.capture.json`,
      };
  }
}

/** The command's flags and help. */
export const spec: CommandSpec = {
  name: "export",
  summary:
    "Write a session back as events, recording_v1 or a capture; a trail or session as a Playwright spec, Maestro flow or Recorder JSON",
  positionals: ["TRAIL|SESSION"],
  flags: {
    ...DB_FLAGS,
    format: {
      type: "string",
      choices: EXPORT_FORMATS,
      default: "events",
      description: "Output format",
    },
    "app-id": {
      type: "string",
      value: "ID",
      description: "The app id of a Maestro flow (com.example.app)",
    },
    out: {
      type: "string",
      alias: "o",
      value: "FILE|DIR",
      description:
        "Write here (else stdout); into a folder (one that exists, or a path ending in /) under the format's file name",
    },
  },
  details: `
Hierarchies and screenshots travel inside the file (blob lines in events, inline text and
data: URIs in a capture), so \`cairn ingest\` of the output rebuilds the same events.

A capture has one entry per action: navigations, and any screen but the last one before each
action, are dropped; an action with no result is written with noResult: true.

recording_v1 is a browser format: an Android or iOS session is refused (exit 2) rather than
written as a web one. Steps, memory and action fields it has no place for are dropped.

--out's missing folders are made; a path ending in / is a folder. A path that cannot be
written exits 2 naming --out.

A recording written into a directory gets the recording format's file name:
vw-ax-agent-{id}-{yyyyMMdd-HHmmss}.json or vw-ax-human-{id}-{yyyyMMdd-HHmmss}.json.

playwright, maestro and recorder take a trail file (or a session, projected into an adaptive
trail as \`cairn optimize\` does) and write a test for another runner:
  playwright  a @playwright/test spec: one test.step per step, each selector chain as
              locator.or(…), templates as TypeScript, secrets from the environment
              (memory key password → process.env.PASSWORD), CAIRN_BASE_URL re-points
              navigations
  maestro     a Maestro flow (Android, iOS): one labelled runFlow per step, env from memory,
              readText as copyTextFrom + evalScript; \`cairn replay\` and \`cairn ingest\`
              read it back
  recorder    Chrome DevTools Recorder JSON (@puppeteer/replay): the chain as the selectors
              array, assertions as waitForElement
What a format cannot express is a comment in the file and a warning line on stderr naming the
step and action.

Examples:
  cairn export login.trail.yaml --format playwright --out e2e/
  cairn export android.trail.yaml --format maestro --app-id com.example.app
  cairn export 3f2a… --format capture --out run.capture.json
  cairn export 3f2a… --format recording_v1 --out recordings/
  cairn export 3f2a… > session.jsonl`,
};

/**
 * Runs `cairn export`.
 *
 * @param args parsed arguments
 * @returns the exit code
 */
export async function run(args: ParsedArgs): Promise<number> {
  const format = (str(args, "format") ?? "events") as ExportFormat;
  let rendered: RenderedSession;
  if (isTrailFormat(format)) {
    const appId = str(args, "app-id");
    const r = await renderTrailExport(args, args.positionals[0]!, format, appId ? { appId } : {});
    for (const w of r.warnings) console.error(`warning: ${w}`);
    rendered = r;
  } else {
    rendered = await renderStored(args, format);
  }
  return await writeRendered(args, rendered);
}

async function renderStored(
  args: ParsedArgs,
  format: Exclude<ExportFormat, TrailExportFormat>,
): Promise<RenderedSession> {
  const store = openStore(args, { existing: true });
  let rendered: RenderedSession;
  try {
    const streamId = await resolveStream(store, args.positionals[0]!);
    rendered = renderSession(await loadSession(store, streamId), format);
  } finally {
    store.close();
  }
  return rendered;
}

async function writeRendered(args: ParsedArgs, rendered: RenderedSession): Promise<number> {
  let out = str(args, "out");
  if (out === undefined) {
    await Deno.stdout.write(new TextEncoder().encode(rendered.text));
    return 0;
  }
  // a folder: one that exists, or a path ending in / (made below, as --out's folders are)
  const isDir = out.endsWith("/") || await Deno.stat(out).then((s) => s.isDirectory, () => false);
  if (isDir) out = await freeName(join(out, rendered.fileName), rendered.text);
  await prepareOutFile(out, "--out");
  await Deno.writeTextFile(out, rendered.text);
  console.log(out);
  return 0;
}

/**
 * The file name to write into a folder: `path` unless a file with other content has it (an
 * earlier export of another session under the same name, such as the session an ingested copy
 * came from), then `name-2.json`, `name-3.json`, … (the first free one, or one holding the same
 * bytes already).
 */
async function freeName(path: string, text: string): Promise<string> {
  const dot = path.lastIndexOf(".");
  const [stem, ext] = dot > path.lastIndexOf("/") ? [path.slice(0, dot), path.slice(dot)] : [
    path,
    "",
  ];
  for (let n = 1; n <= 1000; n++) {
    const candidate = n === 1 ? path : `${stem}-${n}${ext}`;
    const held = await Deno.readTextFile(candidate).catch(() => undefined);
    if (held === undefined || held === text) return candidate;
  }
  return path;
}
