/**
 * An append batch prepared outside the store's transaction: the stream id checked, each event's
 * data checked against its schema and serialised, its meta stamped, and the fingerprint an
 * idempotency key is checked against. Shared by the SQLite and PostgreSQL stores.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { type AppendOptions, type AppendResult, IdempotencyError } from "./event_store.ts";
import type { NewEvent } from "./schemas.ts";
import { isIsoDateTime } from "./iso_date_time.ts";
import { EVENT_CHECKS } from "./exact_check.ts";
import { CURRENT } from "./rows.ts";

let lastMs = -1;
let lastIso = "";

/** `new Date().toISOString()`, formatted once per millisecond (appends come thousands a second). */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

export interface IdempotencyRow {
  stream_id: string;
  positions: string;
  stream_version: number;
  /** Null for keys stored before layout 5. */
  fingerprint: string | null;
}

/**
 * The answer to a batch whose idempotency key is stored: the original result when the batch
 * repeats the stored one (same stream, same events), else an {@linkcode IdempotencyError}.
 */
export function duplicateOf(seen: IdempotencyRow, batch: PreparedBatch): AppendResult {
  const key = batch.key!;
  if (seen.stream_id !== batch.streamId) {
    throw new IdempotencyError(
      key,
      `Idempotency key ${
        JSON.stringify(key)
      } was used for stream ${seen.stream_id}, not ${batch.streamId}`,
    );
  }
  if (seen.fingerprint !== null && seen.fingerprint !== batch.fingerprint) {
    throw new IdempotencyError(
      key,
      `Idempotency key ${
        JSON.stringify(key)
      } was used for other events on stream ${batch.streamId}`,
    );
  }
  return {
    positions: JSON.parse(seen.positions),
    streamVersion: seen.stream_version,
    duplicate: true,
  };
}

/** What a keyed batch says, as sha256 hex of its events' types and data (meta left out). */
function fingerprint(rows: Serialized[]): string {
  const h = createHash("sha256");
  for (const r of rows) h.update(r.type).update("\0").update(r.data).update("\0");
  return h.digest("hex");
}

/** A batch checked and serialised, ready for a store's write. */
export interface PreparedBatch {
  streamId: string;
  rows: Serialized[];
  expected: NonNullable<AppendOptions["expectedVersion"]>;
  key: string | undefined;
  /** With a key: what the batch says ({@linkcode fingerprint}), hashed outside the transaction. */
  fingerprint: string | undefined;
}

/** Checks a batch's stream id and serialises its events (zod-parsed) outside the transaction. */
export function prepareBatch(
  streamId: string,
  events: NewEvent[],
  options: AppendOptions,
  now: string,
): PreparedBatch {
  if (typeof streamId !== "string" || streamId.length === 0) {
    throw new TypeError("Stream id must be a non-empty string");
  }
  const key = options.idempotencyKey;
  const rows = events.map((e, i) => serialize(e, i, now, key));
  return {
    streamId,
    rows,
    expected: options.expectedVersion ?? "any",
    key,
    fingerprint: key === undefined ? undefined : fingerprint(rows),
  };
}

export interface Serialized {
  type: string;
  schemaVersion: number;
  data: string;
  meta: string;
  recordedAt: string | undefined;
}

function serialize(e: NewEvent, i: number, now: string, key: string | undefined): Serialized {
  const rawType = (e as { type?: unknown })?.type;
  const known = typeof rawType === "string" ? EVENT_CHECKS.get(rawType) : undefined;
  if (known === undefined) {
    throw new TypeError(`Event ${i}: unknown event type ${JSON.stringify(rawType)}`);
  }
  const type = rawType as string;
  let data: string;
  // what zod would accept unchanged is stored as it came; the rest zod checks or strips
  if (known.exact?.(e.data)) data = JSON.stringify(e.data);
  else {
    const parsed = known.schema.safeParse(e.data);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = ["data", ...issue.path.map(String)].join(".");
      throw new TypeError(`Event ${i} (${type}): ${field}: ${issue.message}`);
    }
    data = JSON.stringify(parsed.data);
  }
  const m = e.meta;
  let meta: string;
  let recordedAt: string | undefined;
  if (m === undefined && key === undefined) {
    meta = `{"recordedAt":"${now}"}`;
  } else {
    if (m !== undefined && (typeof m !== "object" || m === null)) {
      throw new TypeError(`Event ${i} (${type}): meta must be an object`);
    }
    for (const f of ["recordedAt", "causationId", "correlationId"] as const) {
      const v = m?.[f];
      if (v !== undefined && typeof v !== "string") {
        throw new TypeError(`Event ${i} (${type}): meta.${f}: expected a string`);
      }
    }
    recordedAt = m?.recordedAt;
    // only events that bring their own time (imports) pay for this check (~0.4 µs)
    if (recordedAt !== undefined && !isIsoDateTime(recordedAt)) {
      throw new TypeError(
        `Event ${i} (${type}): meta.recordedAt: expected an ISO 8601 date-time with seconds and a time zone (2026-03-09T10:00:02Z), got ${
          JSON.stringify(recordedAt)
        }`,
      );
    }
    meta = JSON.stringify({
      recordedAt: recordedAt ?? now,
      ...(m?.causationId === undefined ? {} : { causationId: m.causationId }),
      ...(m?.correlationId === undefined ? {} : { correlationId: m.correlationId }),
      ...(key === undefined ? {} : { idempotencyKey: key }),
    });
  }
  return {
    type,
    schemaVersion: CURRENT.get(type)!,
    data,
    meta,
    recordedAt,
  };
}
