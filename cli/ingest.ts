/**
 * `cairn ingest FILE…`: imports capture files (cairn.capture/v1, recording_v1, Chrome DevTools
 * Recorder JSON, Cairn's event export) into the event log, one transaction per file (a session,
 * or one per flow of a DevTools map of flows). Every file is validated whole before anything is
 * stored.
 *
 * @module
 */
import { type PreparedFlow, prepareFlow, writeFlowTrail } from "./_ingest_flow.ts";
import { dirname, resolve } from "node:path";
import { bool, type CommandSpec, type ParsedArgs, str } from "./args.ts";
import { DB_FLAGS, openStore } from "./context.ts";
import { InputError } from "./errors.ts";
import type { EventStore } from "../events/mod.ts";
import { EVENT_SCHEMAS } from "../events/mod.ts";
import { blobRefOf } from "../engine/formats/mod.ts";
import { FormatError } from "../engine/input/mod.ts";
import {
  IMPORT_FORMATS,
  type ImportFormat,
  type PreparedImport,
  prepareImport,
} from "../engine/formats/mod.ts";
import { decodeUtf8, type LiftedJson, liftJson } from "../engine/input/mod.ts";
import { findUnstoredBlob } from "../engine/formats/mod.ts";
import { geometryOutOfRange } from "../engine/formats/mod.ts";
import {
  CAPTURE_FILE_FLAGS,
  captureFileReader,
  type CaptureFileRules,
  captureFileRules,
  notAFile,
} from "./_capture_files.ts";

/** Options of {@linkcode ingestFile}. */
export interface IngestOptions {
  /** Force a format instead of detecting it. */
  format?: ImportFormat;
  /** The new session's id (default: a random UUID). */
  sessionId?: string;
  /** What the file's references may read (default: its folder, 64 MiB a file). */
  files?: CaptureFileRules;
  /** Keep the screens parsed while checking the file (`PreparedFile.screens`), to project them. */
  keepScreens?: boolean;
}

/** What an ingest stored. */
export interface IngestResult {
  file: string;
  /** The (first) session's id. */
  sessionId: string;
  format: ImportFormat;
  /** Events appended to that session. */
  events: number;
  /** Every session of the file (one, or one per flow of a DevTools map of flows). */
  sessions: { sessionId: string; events: number; name?: string }[];
}

/** A file validated and mapped to events, not stored yet. */
export interface PreparedFile extends PreparedImport {
  file: string;
}

/**
 * Reads and validates a file and maps it to the events of a new session (nothing is stored).
 *
 * @param path the file
 * @param options a forced format or session id
 * @returns the prepared import
 * @throws {InputError} `FILE: where: what` for a missing file or bad input
 */
export async function prepareFile(
  path: string,
  options: IngestOptions = {},
): Promise<PreparedFile> {
  let bytes: Uint8Array;
  // a device (/dev/zero, /dev/urandom) never ends, a FIFO blocks: refused before it is opened
  const info = await Deno.stat(path).catch(() => undefined);
  const what = info && notAFile(info);
  if (what) throw new InputError(`${path}: ${what}`);
  try {
    bytes = await Deno.readFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new InputError(`${path}: no such file`);
    if (err instanceof Deno.errors.IsADirectory) throw new InputError(`${path}: is a directory`);
    throw err;
  }
  let count = 0;
  const newSessionId = () => {
    count++;
    if (options.sessionId === undefined) return crypto.randomUUID();
    return nthSessionId(options.sessionId, count);
  };
  const folder = dirname(resolve(path));
  let lifted: LiftedJson | undefined;
  try {
    // a large JSON file is read without its whole text: its long strings stay bytes until read
    lifted = options.format === "events" ? undefined : liftJson(bytes);
    let input: string | LiftedJson;
    if (lifted) input = lifted;
    else {
      input = decodeUtf8(bytes);
      bytes = new Uint8Array(); // the text holds the file now: its bytes need not stay in memory
    }
    const prepared = await prepareImport(input, {
      newSessionId,
      file: path,
      readFile: captureFileReader(folder, options.files),
      ...(options.format ? { format: options.format } : {}),
      ...(options.keepScreens ? { keepScreens: true } : {}),
      encodeScreens: true,
    });
    for (const session of prepared.sessions) {
      session.events.forEach((e, i) => {
        const r = EVENT_SCHEMAS[e.type].safeParse(e.data);
        if (!r.success) {
          const issue = r.error.issues[0]!;
          const field = ["data", ...issue.path.map(String)].join(".");
          throw new FormatError(`event ${i} (${e.type}): ${field}: ${issue.message}`);
        }
        // an events file's parser checked each line's geometry already, naming the line
        const far = prepared.format === "events" ? undefined : geometryOutOfRange(e.type, e.data);
        if (far !== undefined) {
          throw new FormatError(`event ${i} (${e.type}): data.${far.path}: ${far.message}`);
        }
      });
    }
    return { ...prepared, file: path };
  } catch (err) {
    if (err instanceof FormatError) throw new InputError(`${path}: ${err.message}`);
    throw err;
  } finally {
    // the file's bytes, read for its lifted strings, are freed now rather than at the next full
    // collection (what was prepared holds copies, never views of them)
    if (lifted) (bytes.buffer as ArrayBuffer).transfer(0);
  }
}

/** The id of a file's `n`th session (1-based) under a given id: `id`, `id-2`, `id-3`, … */
function nthSessionId(sessionId: string, n: number): string {
  return n === 1 ? sessionId : `${sessionId}-${n}`;
}

/**
 * A prepared file under other session ids, as {@linkcode prepareFile} with `sessionId` would have
 * made it: the sessions' ids and their `SessionStarted.sessionId` (the one place an import puts
 * it) become `sessionId`, `sessionId-2`, …; nothing is read or checked again.
 *
 * @param prepared the output of {@linkcode prepareFile}
 * @param sessionId the id of the first session
 * @returns a copy under the new ids (events not named here are shared)
 * @example
 * ```ts
 * import { prepareFile, withSessionId } from "./ingest.ts";
 * const p = await prepareFile("examples/inventory.capture.json", { sessionId: "probe" });
 * const q = withSessionId(p, "s1");
 * const started = q.sessions[0]!.events[0]!;
 * if (q.sessions[0]!.sessionId !== "s1" || started.type !== "SessionStarted") throw new Error();
 * if (started.data.sessionId !== "s1") throw new Error();
 * ```
 */
export function withSessionId(prepared: PreparedFile, sessionId: string): PreparedFile {
  return {
    ...prepared,
    sessions: prepared.sessions.map((session, i) => {
      const id = nthSessionId(sessionId, i + 1);
      const events = session.events.map((e) =>
        e.type === "SessionStarted" ? { ...e, data: { ...e.data, sessionId: id } } : e
      );
      return { ...session, sessionId: id, events };
    }),
  };
}

/**
 * Checks that every blob an events file references but does not carry is in the store.
 *
 * @param store the event store
 * @param prepared the output of {@linkcode prepareFile}
 * @throws {InputError} naming the file, the line and the hash of a missing blob
 */
export async function checkExternalBlobs(store: EventStore, prepared: PreparedFile): Promise<void> {
  const missing = await findUnstoredBlob(store, prepared.external);
  if (missing === undefined) return;
  const [hash, line] = missing;
  throw new InputError(
    `${prepared.file}: line ${line}: blob ${hash} is neither in the file nor in the database`,
  );
}

/**
 * Stores a prepared file: its blobs, then every session's events in one transaction
 * (`appendMany`, each with `expectedVersion: "no_stream"`; a file is one session except a
 * DevTools map of flows, and such a file is stored whole or not at all). Blobs go first: one
 * left behind by a failed append is content-addressed and harmless.
 *
 * @param store the event store
 * @param prepared the output of {@linkcode prepareFile}
 * @returns what was stored
 * @throws {InputError} when an events file references a blob neither it nor the store holds
 */
export async function storePrepared(
  store: EventStore,
  prepared: PreparedFile,
): Promise<IngestResult> {
  await checkExternalBlobs(store, prepared);
  for (const blob of prepared.blobs) {
    const ref = await store.putBlob(blob.bytes, blob.mediaType);
    const expected = blobRefOf(blob).hash;
    if (ref.hash !== expected) {
      throw new Error(`Blob hash mismatch: stored ${ref.hash}, computed ${expected}`);
    }
  }
  // the parsed screens beside their hierarchies, so a projection need not parse them again
  if (store.putDerived) {
    for (const d of prepared.derived ?? []) await store.putDerived(d.hash, d.kind, d.bytes);
  }
  await store.appendMany(prepared.sessions.map((session) => ({
    streamId: `session-${session.sessionId}`,
    events: session.events,
    options: { expectedVersion: "no_stream" as const },
  })));
  const sessions: IngestResult["sessions"] = prepared.sessions.map((session) => ({
    sessionId: session.sessionId,
    events: session.events.length,
    ...(session.name !== undefined ? { name: session.name } : {}),
  }));
  return {
    file: prepared.file,
    sessionId: sessions[0]!.sessionId,
    format: prepared.format,
    events: sessions[0]!.events,
    sessions,
  };
}

/**
 * Imports one file as a new session: validates it whole, stores its blobs, and appends its
 * events in one batch.
 *
 * @param store the event store
 * @param path the file
 * @param options a forced format or session id
 * @returns the session id, the detected format and how many events were appended
 * @throws {InputError} `FILE: where: what` for bad input (nothing is appended)
 * @example
 * ```ts ignore
 * const { sessionId } = await ingestFile(store, "examples/inventory.capture.json");
 * ```
 */
export async function ingestFile(
  store: EventStore,
  path: string,
  options: IngestOptions = {},
): Promise<IngestResult> {
  return await storePrepared(store, await prepareFile(path, options));
}

/** The command's flags and help. */
export const spec: CommandSpec = {
  name: "ingest",
  summary:
    "Import capture files (capture v1, recording_v1, Chrome Recorder, events) as sessions; Maestro flows as trails",
  positionals: ["FILE..."],
  flags: {
    ...DB_FLAGS,
    format: {
      type: "string",
      choices: IMPORT_FORMATS,
      description: "Read every file as this format instead of detecting it",
    },
    json: {
      type: "boolean",
      description: "Print [{ file, sessionId, format, events, sessions }] as JSON, not the ids",
    },
    ...CAPTURE_FILE_FLAGS,
  },
  details: `
Each file becomes one session (DevTools' map of flows: one per flow), appended in one
transaction; every file is validated before anything is stored, so a bad file leaves the
database unchanged (exit code 2).
Prints one session id per line.
A capture's file references ("viewHierarchy": {"file": …}, screenshot paths) are read
inside the capture's folder only (--allow-outside to leave it), regular files only (no
devices, FIFOs or /proc), at most 64 MiB each (--max-file-size), each within 30 s.

A Maestro flow (YAML with an appId header) is a script, not a capture: it becomes a trail,
written to trails/<name>.trail.yaml beside the database (its path printed). Commands a trail
cannot hold (runScript, a runFlow of another file, a Maestro web flow) are refused naming the
line. \`cairn export TRAIL --format maestro\` writes flows that read back to the same trail.

Examples:
  cairn ingest examples/inventory.capture.json
  cairn ingest --json flows/*.json
  cairn ingest --format chrome-recorder flow.json
  cairn ingest login.maestro.yaml`,
};

/**
 * Runs `cairn ingest`.
 *
 * @param args parsed arguments
 * @returns the exit code
 */
export async function run(args: ParsedArgs): Promise<number> {
  const format = str(args, "format") as ImportFormat | undefined;
  const prepared: PreparedFile[] = [];
  const flows: PreparedFlow[] = [];
  for (const path of args.positionals) {
    const flow = format ? undefined : await prepareFlow(path);
    if (flow) flows.push(flow);
    else {
      prepared.push(
        await prepareFile(path, { ...(format ? { format } : {}), files: captureFileRules(args) }),
      );
    }
  }
  // a Maestro flow is a script: it becomes a trail beside the database, not a session
  for (const f of flows) console.log(await writeFlowTrail(args, f));
  if (prepared.length === 0) return 0;
  const store = openStore(args);
  try {
    // Every check before the first append: a bad file leaves the database unchanged.
    for (const p of prepared) await checkExternalBlobs(store, p);
    const results: IngestResult[] = [];
    for (const p of prepared) results.push(await storePrepared(store, p));
    if (bool(args, "json")) console.log(JSON.stringify(results, null, 2));
    else for (const r of results) for (const s of r.sessions) console.log(s.sessionId);
    return 0;
  } finally {
    store.close();
  }
}
