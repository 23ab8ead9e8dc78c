/**
 * One entry for every importable file: detects the format from the text, validates the whole
 * file, reads the files it references, and returns the events of its sessions (one; several for
 * a file of many Recorder flows) and the blobs they need — before anything is stored.
 *
 * @module
 */
import type { NewEvent } from "../../events/mod.ts";
import { parsedScreenKind, type Screen } from "../screens/mod.ts";
import { blobRefOf, type PendingBlob } from "./blob_ref.ts";
import { CAPTURE_FORMAT, captureToEvents, CaptureV1 } from "./capture_v1.ts";
import { loadCaptureScreens, resolveScreens } from "./capture_screens.ts";
import { checkCapturePoints } from "./capture_points.ts";
import { parseEventsJsonl } from "./events_jsonl.ts";
import { checkSessionEvents } from "./session_rules.ts";
import { FormatError, zodToFormatError } from "../input/mod.ts";
import { checkJsonNesting, type LiftedJson, parseJson, restoreLifted } from "../input/mod.ts";
import { RECORDING_FORMAT, recordingToEvents } from "./recording_v1.ts";
import { flowToEvents, looksLikeChromeRecorder, parseChromeRecorder } from "./chrome_recorder.ts";

/** The file formats `cairn ingest` reads. */
export const IMPORT_FORMATS = ["capture", "recording_v1", "chrome-recorder", "events"] as const;
export type ImportFormat = typeof IMPORT_FORMATS[number];

/** Options of {@linkcode prepareImport}. */
export interface PrepareImportOptions {
  /** Force a format instead of detecting it. */
  format?: ImportFormat;
  /** Makes the id of each new session. */
  newSessionId(): string;
  /** The file's name, kept in `SessionStarted.source`. */
  file?: string;
  /** Reads a file named relative to the imported file's folder. */
  readFile(relativePath: string): Promise<Uint8Array>;
  /** Keep the screens parsed while checking a capture (`PreparedImport.screens`). */
  keepScreens?: boolean;
  /** Keep each checked screen's bytes to store beside its hierarchy (`PreparedImport.derived`). */
  encodeScreens?: boolean;
}

/** One session of an import. */
export interface PreparedSession {
  sessionId: string;
  events: NewEvent[];
  /** The flow's name in a file of several (DevTools' map of flows by test name). */
  name?: string;
}

/** A validated import, ready to store. */
export interface PreparedImport {
  format: ImportFormat;
  sessions: PreparedSession[];
  /** Blobs to store before the events are appended. */
  blobs: PendingBlob[];
  /** Blobs the events reference but the file does not carry (events files): hash → line. */
  external: Map<string, number>;
  /**
   * The screens parsed while checking the file, by hierarchy blob hash (captures): a projection
   * right after the import takes them instead of reading and parsing the blobs again.
   */
  screens?: Map<string, Screen>;
  /**
   * What to keep beside blobs (`EventStore.putDerived`): each checked screen's bytes under its
   * hierarchy's hash (captures, with `encodeScreens`).
   */
  derived?: DerivedBytes[];
}

/** Bytes computed from a blob, kept beside it under a kind. */
export interface DerivedBytes {
  hash: string;
  kind: string;
  bytes: Uint8Array;
}

const UNKNOWN = `unknown format: expected a JSON object with "format": "${CAPTURE_FORMAT}" ` +
  `or "schema_version": "${RECORDING_FORMAT}", a Chrome Recorder flow with "steps", ` +
  `or JSON lines of events (force one with --format)`;

/** `actions.N.viewHierarchy` */
function isInlineHierarchy(path: readonly (string | number)[]): boolean {
  return path.length === 3 && path[0] === "actions" && typeof path[1] === "number" &&
    path[2] === "viewHierarchy";
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Detects the format of a file's text.
 *
 * @param text the file's text
 * @returns the format and, for single-document JSON formats, the parsed value
 * @throws {FormatError} for malformed JSON (line and column), JSON nested too deep or an unknown
 *   format
 * @example
 * ```ts
 * if (detectImportFormat('{"format":"cairn.capture/v1"}').format !== "capture") throw new Error();
 * ```
 */
export function detectImportFormat(text: string): { format: ImportFormat; value?: unknown } {
  if (text.trim() === "") throw new FormatError("empty file: expected JSON");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const first = text.split("\n").find((l) => l.trim() !== "") ?? "";
    try {
      const line = JSON.parse(first);
      if (isObject(line) && ("type" in line || "blob" in line)) return { format: "events" };
    } catch {
      // fall through to the located error of the whole text
    }
    parseJson(text); // throws with line and column
    throw new FormatError(UNKNOWN);
  }
  return formatOfValue(value);
}

/** The format of one parsed JSON document (see {@linkcode detectImportFormat}). */
function formatOfValue(value: unknown): { format: ImportFormat; value?: unknown } {
  checkJsonNesting(value);
  if (!isObject(value)) throw new FormatError(UNKNOWN);
  if (value.format === CAPTURE_FORMAT) return { format: "capture", value };
  if (value.schema_version === RECORDING_FORMAT) return { format: "recording_v1", value };
  if (typeof value.schema_version === "string") {
    throw new FormatError(
      `schema_version: unknown format ${JSON.stringify(value.schema_version)}`,
      "schema_version",
    );
  }
  if (typeof value.type === "string" && "data" in value) return { format: "events" };
  if (looksLikeChromeRecorder(value)) return { format: "chrome-recorder", value };
  if (typeof value.format === "string") {
    throw new FormatError(`format: unknown format ${JSON.stringify(value.format)}`, "format");
  }
  throw new FormatError(UNKNOWN);
}

/**
 * Validates a file and maps it to the events of one new session.
 *
 * @param input the file's text, or its JSON document read with its long strings lifted
 *   (`liftJson`: a capture's inline hierarchies are then decoded one at a time)
 * @param options the session id, the file name and how to read referenced files
 * @returns the events and the blobs to store
 * @throws {FormatError} naming the line or field of the first problem
 */
export async function prepareImport(
  input: string | LiftedJson,
  options: PrepareImportOptions,
): Promise<PreparedImport> {
  let format: ImportFormat;
  let value: unknown;
  const lifted = typeof input === "string" ? undefined : input;
  const text = typeof input === "string" ? input : "";
  if (lifted) {
    if (options.format === "events") throw new TypeError("an events file is read as text");
    // only a capture's inline hierarchies stay lifted, until each is read
    restoreLifted(lifted, isInlineHierarchy);
    ({ format, value } = options.format
      ? { format: options.format, value: lifted.value }
      : formatOfValue(lifted.value));
    if (format !== "capture") restoreLifted(lifted);
  } else if (options.format) {
    format = options.format;
    if (format !== "events") value = parseJson(text);
  } else {
    ({ format, value } = detectImportFormat(text));
  }
  switch (format) {
    case "capture": {
      const parsed = CaptureV1.safeParse(value);
      if (!parsed.success) throw zodToFormatError(parsed.error);
      const pending = await loadCaptureScreens(parsed.data, {
        ...options,
        ...(lifted ? { liftedText: (s: string) => lifted.text(s) } : {}),
      });
      checkCapturePoints(parsed.data, pending);
      const { screens, blobs } = resolveScreens(pending);
      const sessionId = options.newSessionId();
      const events = captureToEvents(parsed.data, {
        sessionId,
        blobs: screens,
        ...(options.file ? { file: options.file } : {}),
      });
      const parsedScreens = new Map<string, Screen>();
      const derived = new Map<string, DerivedBytes>();
      screens.forEach((s, i) => {
        const p = pending[i];
        if (!s || !p) return;
        if (p.screen) parsedScreens.set(s.hierarchy.hash, p.screen);
        const kind = parsedScreenKind(s.format);
        if (p.parsed && !derived.has(`${s.hierarchy.hash} ${kind}`)) {
          derived.set(`${s.hierarchy.hash} ${kind}`, {
            hash: s.hierarchy.hash,
            kind,
            bytes: p.parsed,
          });
        }
      });
      return {
        format,
        sessions: [{ sessionId, events }],
        blobs,
        external: new Map(),
        screens: parsedScreens,
        derived: [...derived.values()],
      };
    }
    case "recording_v1": {
      const sessionId = options.newSessionId();
      const { events, blobs } = recordingToEvents(value, {
        sessionId,
        ...(options.file ? { file: options.file } : {}),
      });
      return { format, sessions: [{ sessionId, events }], blobs, external: new Map() };
    }
    case "chrome-recorder": {
      const sessions = parseChromeRecorder(value).map(({ key, flow }): PreparedSession => {
        const sessionId = options.newSessionId();
        const events = flowToEvents(flow, {
          sessionId,
          ...(options.file ? { file: options.file } : {}),
          ...(key !== undefined ? { key } : {}),
        });
        return { sessionId, events, ...(key !== undefined ? { name: key } : {}) };
      });
      if (sessions.length === 0) {
        throw new FormatError(
          "(root): expected a Chrome Recorder flow with steps, a step, or a map of flows by name; got an empty object",
        );
      }
      return { format, sessions, blobs: [], external: new Map() };
    }
    case "events": {
      const file = parseEventsJsonl(text);
      // the rules every session stream keeps (an HTTP append to session-* too)
      const broken = checkSessionEvents(file.events);
      if (broken !== undefined) {
        const line = file.lines[broken.index] ?? file.lines[0] ?? 1;
        throw new FormatError(`line ${line}: ${broken.message}`, `${line}`);
      }
      if (file.events.length === 0) {
        throw new FormatError("line 1: the first event of a session must be SessionStarted", "1");
      }
      const sessionId = options.newSessionId();
      const events = file.events.map((e): NewEvent =>
        e.type === "SessionStarted" ? { ...e, data: { ...e.data, sessionId } } : e
      );
      const inFile = new Set(file.blobs.map((b) => blobRefOf(b).hash));
      const external = new Map<string, number>();
      for (const [hash, { line }] of file.references) {
        if (!inFile.has(hash)) external.set(hash, line);
      }
      return { format, sessions: [{ sessionId, events }], blobs: file.blobs, external };
    }
  }
}
