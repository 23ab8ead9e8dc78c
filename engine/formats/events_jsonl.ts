/**
 * Cairn's event export: one JSON object per line. An event line is
 * `{ "type", "schemaVersion", "data", "meta" }`; a blob line `{ "blob": BlobRef, "base64" }`
 * comes before the first event that references the blob, so a file is self-contained.
 *
 * @module
 */
import {
  BlobRef,
  CURRENT_SCHEMA_VERSION,
  EVENT_SCHEMAS,
  type EventData,
  type EventType,
  type NewEvent,
} from "../../events/mod.ts";
import { droppedField, EVENT_CHECKS } from "../../events/mod.ts";
import { schemaAt, upcast } from "../../events/mod.ts";
import { decodeBase64, encodeBase64 } from "./base64.ts";
import { blobRefOf, type PendingBlob } from "./blob_ref.ts";
import { checkHierarchy, checkScreenshot, hierarchyText } from "./check_screen.ts";
import { FormatError, zodToFormatError } from "../input/mod.ts";
import { IsoDateTime } from "./iso_date_time.ts";
import { parseJson } from "../input/mod.ts";
import { geometryOutOfRange } from "./screen_point.ts";

/** The event types a session stream holds. */
export const SESSION_EVENT_TYPES: ReadonlySet<string> = new Set<EventType>([
  "SessionStarted",
  "StepStarted",
  "ScreenCaptured",
  "ActionPerformed",
  "MemorySnapshotted",
  "ActionCompleted",
  "NavigationOccurred",
  "StepEnded",
  "SessionEnded",
]);

/** A parsed events file. */
export interface EventsFile {
  events: NewEvent[];
  /** The line of each event. */
  lines: number[];
  /** Blobs the file carries, checked against their hashes. */
  blobs: PendingBlob[];
  /** Every blob the events reference, with the line of its first reference. */
  references: Map<string, { ref: BlobRef; line: number }>;
}

/**
 * The blob references inside an event's data (any object shaped like a `BlobRef`).
 *
 * @param data event data
 * @returns the references, in document order
 */
export function blobRefsIn(data: unknown): BlobRef[] {
  const out: BlobRef[] = [];
  const visit = (v: unknown) => {
    if (v === null || typeof v !== "object") return;
    if (Array.isArray(v)) return v.forEach(visit);
    if (isBlobRef(v)) out.push({ hash: v.hash, mediaType: v.mediaType, size: v.size });
    else Object.values(v).forEach(visit);
  };
  visit(data);
  return out;
}

const HASH = /^[0-9a-f]{64}$/;

/** A `BlobRef` by shape: exactly hash (sha256 hex), mediaType and size (a hot path: no zod). */
function isBlobRef(v: object): v is BlobRef {
  const o = v as Record<string, unknown>;
  return typeof o.hash === "string" && HASH.test(o.hash) && typeof o.mediaType === "string" &&
    typeof o.size === "number" && Object.keys(o).length === 3;
}

/**
 * Parses an events file of one session: every line is checked (JSON, one event per line, known
 * session event type, data against its schema after upcasting an older `schemaVersion` with no
 * unknown field, an ISO 8601 `meta.recordedAt`, blob hashes), and so are the screens whose
 * blobs the file carries (the hierarchy parses, the screenshot is an image of its type).
 *
 * @param text the file's text
 * @returns the events, the blobs the file carries and the blobs the events reference
 * @throws {FormatError} `line N: …` naming the line (and the field) of the first problem
 * @example
 * ```ts
 * const f = parseEventsJsonl('{"type":"StepStarted","data":{"index":0,"text":"Open"}}\n');
 * if (f.events[0]!.type !== "StepStarted") throw new Error();
 * ```
 */
export function parseEventsJsonl(text: string): EventsFile {
  const events: NewEvent[] = [];
  const eventLines: number[] = [];
  const blobs: PendingBlob[] = [];
  const references = new Map<string, { ref: BlobRef; line: number }>();
  /** The blobs of the file by hash, and its screens with their lines (checked at the end). */
  const carried = new Map<string, PendingBlob>();
  const screens: [EventData<"ScreenCaptured">, number][] = [];
  const lines = text.split("\n");
  lines.forEach((raw, i) => {
    const n = i + 1;
    if (raw.trim() === "") return;
    let value: unknown;
    try {
      value = parseJson(raw);
    } catch (err) {
      if (!(err instanceof FormatError)) throw err;
      const at = /^line 1, column (\d+): /.exec(err.message);
      if (!at) throw new FormatError(`line ${n}: ${err.message}`, `${n}`); // nested too deep
      // The value went on past the end of its line, and more lines follow: not an events file
      // (pretty-printed JSON, say), rather than one cut short.
      if (Number(at[1]) > raw.length && lines.slice(i + 1).some((l) => l.trim() !== "")) {
        throw new FormatError(
          `line ${n}: not a complete JSON event (an events file holds one JSON event per line)`,
          `${n}`,
        );
      }
      throw new FormatError(`line ${n}, ${err.message.slice("line 1, ".length)}`, `${n}`);
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new FormatError(`line ${n}: expected an event object`, `${n}`);
    }
    const o = value as Record<string, unknown>;
    if ("blob" in o) {
      const extra = Object.keys(o).find((k) => !BLOB_LINE.has(k));
      if (extra !== undefined) {
        throw new FormatError(
          `line ${n}: ${extra}: unknown field (a blob line holds blob, base64)`,
        );
      }
      const ref = BlobRef.safeParse(o.blob);
      const bytes = typeof o.base64 === "string" ? decodeBase64(o.base64) : undefined;
      if (!ref.success) {
        throw new FormatError(`line ${n}: blob: expected { hash, mediaType, size }`);
      }
      if (!bytes) throw new FormatError(`line ${n}: base64: expected the blob's bytes in base64`);
      const blob = { bytes, mediaType: ref.data.mediaType };
      if (blobRefOf(blob).hash !== ref.data.hash) {
        throw new FormatError(`line ${n}: blob.hash does not match the sha256 of its bytes`);
      }
      blobs.push(blob);
      carried.set(ref.data.hash, blob);
      return;
    }
    const type = o.type;
    if (typeof type !== "string") throw new FormatError(`line ${n}: type: expected a string`);
    if (!Object.hasOwn(EVENT_SCHEMAS, type)) {
      throw new FormatError(`line ${n}: type: unknown event type ${JSON.stringify(type)}`);
    }
    if (!SESSION_EVENT_TYPES.has(type)) {
      throw new FormatError(`line ${n}: type: ${type} is not a session event`);
    }
    const extra = Object.keys(o).find((k) => !EVENT_LINE.has(k));
    if (extra !== undefined) {
      throw new FormatError(
        `line ${n}: ${extra}: unknown field (an event line holds type, schemaVersion, data, meta)`,
        `${n}`,
      );
    }
    const current = CURRENT_SCHEMA_VERSION[type as EventType];
    const version = o.schemaVersion ?? current;
    if (typeof version !== "number" || !Number.isInteger(version) || version < 1) {
      throw new FormatError(`line ${n}: schemaVersion: expected a positive integer`);
    }
    // a version this Cairn cannot read is the schemaVersion's fault, not the data's
    const schema = schemaAt(type as EventType, version);
    if (schema === undefined) {
      throw new FormatError(
        version > current
          ? `line ${n}: schemaVersion: ${type} has schema version ${version}, newer than this Cairn knows (${current})`
          : `line ${n}: schemaVersion: ${type} has no schema version ${version} this Cairn reads (it knows ${current})`,
        `${n}`,
      );
    }
    let data: unknown;
    // what zod would take unchanged is kept as it is; the rest goes through zod (and upcasting)
    if (version === current && EVENT_CHECKS.get(type)!.exact?.(o.data)) data = o.data;
    else {
      // the data as its own version's schema has it, fields named (`data.hierarchyHash: …`)
      const own = schema.safeParse(o.data);
      if (!own.success) {
        const at = version === current ? "" : ` (${type} schema version ${version})`;
        const err = zodToFormatError(own.error, `line ${n}: data`);
        throw new FormatError(`${err.message}${at}`, `${n}`);
      }
      try {
        data = upcast(type, version, o.data).data;
      } catch (err) {
        throw new FormatError(`line ${n}: data: ${(err as Error).message}`, `${n}`);
      }
      // zod drops unknown fields: in a file they are mistakes (typos), as in a capture; data of
      // an older version is held to that version's schema
      const dropped = version === current
        ? droppedField(o.data, data)
        : droppedField(o.data, own.data);
      if (dropped !== undefined) {
        throw new FormatError(
          `line ${n}: data.${dropped}: unknown field (not in the ${type} schema)`,
          `${n}`,
        );
      }
    }
    // the stored schema takes any number; geometry coming in must fit a page (screen_point.ts)
    const far = geometryOutOfRange(type, data);
    if (far !== undefined) {
      throw new FormatError(`line ${n}: data.${far.path}: ${far.message}`, `${n}`);
    }
    const meta = metaOf(o.meta, n);
    const event = { type, data, ...(meta ? { meta } : {}) } as NewEvent;
    if (type === "ScreenCaptured") screens.push([data as EventData<"ScreenCaptured">, n]);
    for (const ref of blobRefsIn(data)) {
      if (!references.has(ref.hash)) references.set(ref.hash, { ref, line: n });
    }
    events.push(event);
    eventLines.push(n);
  });
  const checked = new Set<string>();
  for (const [data, line] of screens) checkCarriedScreen(data, line, { carried, checked });
  return { events, lines: eventLines, blobs, references };
}

/** The fields of an event line and of a blob line. */
const EVENT_LINE = new Set(["type", "schemaVersion", "data", "meta"]);
const BLOB_LINE = new Set(["blob", "base64"]);

/** The `meta` fields an event line may carry; the store adds the idempotency key itself. */
const META_FIELDS = new Set(["recordedAt", "causationId", "correlationId"]);

/** An event line's `meta`, when it has one: an ISO 8601 `recordedAt` and the two ids. */
function metaOf(meta: unknown, line: number): NewEvent["meta"] {
  if (meta === undefined) return undefined;
  if (meta === null || typeof meta !== "object" || Array.isArray(meta)) {
    throw new FormatError(`line ${line}: meta: expected an object`, `${line}`);
  }
  const m = meta as Record<string, unknown>;
  for (const [k, v] of Object.entries(m)) {
    if (!META_FIELDS.has(k)) {
      throw new FormatError(
        `line ${line}: meta.${k}: unknown field (meta holds recordedAt, causationId, correlationId)`,
        `${line}`,
      );
    }
    if (typeof v !== "string") {
      throw new FormatError(`line ${line}: meta.${k}: expected a string`, `${line}`);
    }
  }
  const out: NonNullable<NewEvent["meta"]> = {};
  if (m.recordedAt !== undefined) {
    const parsed = IsoDateTime.safeParse(m.recordedAt);
    if (!parsed.success) throw zodToFormatError(parsed.error, `line ${line}: meta.recordedAt`);
    out.recordedAt = parsed.data;
  }
  if (m.causationId !== undefined) out.causationId = m.causationId as string;
  if (m.correlationId !== undefined) out.correlationId = m.correlationId as string;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Checks the hierarchy and screenshot of a screen whose blobs the file carries, each blob once
 * per format (`checkHierarchy`, `checkScreenshot`); a blob already in the database was checked
 * when it was stored.
 */
function checkCarriedScreen(
  data: EventData<"ScreenCaptured">,
  line: number,
  blobs: { carried: ReadonlyMap<string, PendingBlob>; checked: Set<string> },
): void {
  const key = `${data.format} ${data.hierarchy.hash}`;
  const hierarchy = blobs.carried.get(data.hierarchy.hash);
  if (hierarchy && !blobs.checked.has(key)) {
    const field = `line ${line}: data.hierarchy`;
    checkHierarchy(hierarchyText(hierarchy.bytes, field), data.format, field);
    blobs.checked.add(key);
  }
  const shot = data.screenshot && blobs.carried.get(data.screenshot.hash);
  if (shot) {
    const { mediaType } = data.screenshot!;
    checkScreenshot({ bytes: shot.bytes, mediaType }, `line ${line}: data.screenshot`);
  }
}

/** An event as the exporter reads it. */
export interface ExportedEvent {
  type: string;
  schemaVersion?: number;
  data: unknown;
  meta?: {
    recordedAt?: string;
    causationId?: string | undefined;
    correlationId?: string | undefined;
  };
}

/**
 * Writes a session's events as JSON lines, each blob once before its first reference.
 *
 * @param events the session's events in order
 * @param blobs blob bytes by hash (blobs not in the map are referenced but not embedded)
 * @returns the file text, ending with a newline
 */
export function formatEventsJsonl(
  events: readonly ExportedEvent[],
  blobs: ReadonlyMap<string, Uint8Array>,
): string {
  const out: string[] = [];
  const written = new Set<string>();
  for (const e of events) {
    for (const ref of blobRefsIn(e.data)) {
      const bytes = blobs.get(ref.hash);
      if (!bytes || written.has(ref.hash)) continue;
      written.add(ref.hash);
      out.push(JSON.stringify({ blob: ref, base64: encodeBase64(bytes) }));
    }
    out.push(JSON.stringify({
      type: e.type,
      schemaVersion: e.schemaVersion ?? CURRENT_SCHEMA_VERSION[e.type as EventType],
      data: e.data,
      ...exportedMeta(e.meta),
    }));
  }
  return out.join("\n") + "\n";
}

/** The `meta` of an exported line: `recordedAt` and the two ids, never the idempotency key. */
function exportedMeta(meta: ExportedEvent["meta"]): { meta?: ExportedEvent["meta"] } {
  if (!meta) return {};
  const { recordedAt, causationId, correlationId } = meta;
  const out = {
    ...(recordedAt ? { recordedAt } : {}),
    ...(causationId !== undefined ? { causationId } : {}),
    ...(correlationId !== undefined ? { correlationId } : {}),
  };
  return Object.keys(out).length > 0 ? { meta: out } : {};
}
