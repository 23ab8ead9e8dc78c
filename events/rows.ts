/**
 * Stored rows read back as events: the fast path for rows written at the current schema
 * version, upcasting for older ones, and errors naming a row that cannot be read.
 *
 * @module
 */
import { CURRENT_SCHEMA_VERSION, type StoredEvent } from "./schemas.ts";
import { UnreadableEventError, upcast } from "./upcasters.ts";

/** An events row as an array: position, stream_id, stream_version, type, schema_version, data, meta. */
export type EventRow = [number, string, number, string, number, string, string];

/** Each event type's current schema version. */
export const CURRENT = new Map<string, number>(Object.entries(CURRENT_SCHEMA_VERSION));

/** A stored row that `toEvent` could not read, as an error naming its position (cold path). */
export function unreadableRow(row: EventRow, err: unknown): UnreadableEventError {
  const [position, streamId, , type, version, rawData, rawMeta] = row;
  const at = `Stored event at position ${position} (${type} in ${streamId})`;
  const field = !parses(rawData) ? "data" : !parses(rawMeta) ? "meta" : undefined;
  const why = err instanceof Error ? err.message : String(err);
  if (field !== undefined) {
    // JSON.parse's "at position 7 (line 1 column 8)" is a character of the text, not the log's
    const where = why.replace(
      / at position (\d+)(?: \(line \d+ column \d+\))?/,
      " at character $1",
    );
    return new UnreadableEventError(`${at} is not valid JSON: ${field}: ${where}`, position);
  }
  return new UnreadableEventError(
    `${at} cannot be read (schema version ${version}): ${why}`,
    position,
  );
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A sync iterable as an async one, without an async generator's extra ticks per item. */
export function toAsync<T>(iterable: Iterable<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      const it = iterable[Symbol.iterator]();
      return {
        next() {
          try {
            return Promise.resolve(it.next());
          } catch (err) {
            return Promise.reject(err);
          }
        },
        return(value?: unknown) {
          it.return?.();
          return Promise.resolve({ done: true as const, value: value as T });
        },
      };
    },
  };
}

/**
 * Makes a read event: a plain object (its prototype is `Object.prototype`, as a literal's), but
 * built with `new` rather than an object literal. V8 pretenures a literal's allocation site once
 * the process has kept many objects made there (a projection holding the events it read); every
 * event read afterwards is then born in the old generation and pins its young `data` through
 * each scavenge: full reads took 1.8× as long (`scripts/store_read_bench.ts`). Objects made by
 * `new` carry no such allocation-site feedback.
 */
function PlainEvent(
  this: Record<string, unknown>,
  position: number,
  streamId: string,
  streamVersion: number,
  type: string,
  schemaVersion: number,
  data: unknown,
  meta: unknown,
): void {
  this.position = position;
  this.streamId = streamId;
  this.streamVersion = streamVersion;
  this.type = type;
  this.schemaVersion = schemaVersion;
  this.data = data;
  this.meta = meta;
}
PlainEvent.prototype = Object.prototype;
const EventObject = PlainEvent as unknown as new (
  ...args: Parameters<typeof PlainEvent>
) => StoredEvent;

const META_PREFIX = '{"recordedAt":"';

export function toEvent(r: EventRow): StoredEvent {
  const [position, streamId, streamVersion, type, storedVersion, rawData, rawMeta] = r;
  let data: unknown = JSON.parse(rawData);
  let schemaVersion = storedVersion;
  if (CURRENT.get(type) !== schemaVersion) {
    ({ data, schemaVersion } = upcast(type, schemaVersion, data));
  }
  // the common meta, `{"recordedAt":"<ISO time>"}`, is sliced rather than parsed
  const meta = rawMeta.length === META_PREFIX.length + 26 && rawMeta.startsWith(META_PREFIX) &&
      rawMeta.endsWith('"}') && !rawMeta.includes("\\")
    ? { recordedAt: rawMeta.slice(META_PREFIX.length, -2) }
    : JSON.parse(rawMeta);
  return new EventObject(position, streamId, streamVersion, type, schemaVersion, data, meta);
}
