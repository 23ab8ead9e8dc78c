/**
 * Events over HTTP: batch append to a stream, read a stream, and the whole log as
 * Server-Sent Events that replay from a position and then follow live appends.
 *
 * @module
 */
import { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import {
  type AppendOptions,
  type AppendResult,
  ConcurrencyError,
  type EventStore,
  NotFoundError,
  streamInfo,
} from "../events/mod.ts";
import { droppedField } from "../events/mod.ts";
import { EVENT_SCHEMAS, EventMeta, type NewEvent, type StoredEvent } from "../events/mod.ts";
import { IsoDateTime } from "../events/mod.ts";
import {
  checkSessionEvents,
  checkStoredBlobs,
  type SessionRuleBreak,
  type SessionSoFar,
} from "../engine/formats/mod.ts";
import { checkRunEvents, runKindOf } from "../engine/validation/mod.ts";
import type { ApiContext } from "./app.ts";
import {
  ApiError,
  decimal,
  errorResponseOf,
  invalidRequest,
  logServerError,
  parseInput,
  parseQuery,
  pathId,
  readJson,
} from "./errors.ts";
import { describeRoute } from "./openapi.ts";
import { geometryOutOfRange } from "../engine/formats/mod.ts";

const NewEventMeta = z.object({
  recordedAt: IsoDateTime.optional(),
  causationId: z.string().optional(),
  correlationId: z.string().optional(),
}).strict();

const [first, ...others] = Object.entries(EVENT_SCHEMAS).map(([type, data]) =>
  z.object({ type: z.literal(type), data, meta: NewEventMeta.optional() })
);

/** One event in an append body, discriminated by `type`. */
export const NewEventBody = z.discriminatedUnion("type", [first!, ...others]);

const [firstStored, ...otherStored] = Object.entries(EVENT_SCHEMAS).map(([type, data]) =>
  z.object({
    position: z.number().int(),
    streamId: z.string(),
    streamVersion: z.number().int(),
    type: z.literal(type),
    schemaVersion: z.number().int(),
    data,
    meta: EventMeta,
  })
);

/** A stored event as the API returns it, discriminated by `type`. */
export const StoredEventBody = z.discriminatedUnion("type", [firstStored!, ...otherStored]);

/** `GET /v1/streams/:id/events` answer. */
export const ReadStreamResponse = z.object({
  streamId: z.string(),
  version: z.number().int(),
  events: z.array(StoredEventBody),
  /** The version to read from next, or null at the end. */
  next: z.number().int().nullable(),
});

/** `GET /v1/events` with `Accept: application/json`: a page of the log. */
export const EventsPage = z.object({
  events: z.array(StoredEventBody),
  /** The position to read from next, or null at the end. */
  next: z.number().int().nullable(),
});

/** `POST /v1/streams/:id/events` body. */
export const AppendBody = z.object({
  events: z.array(NewEventBody).min(1),
  expectedVersion: z.union([z.number().int().nonnegative(), z.enum(["no_stream", "any"])])
    .optional(),
  // as the header: a key of whitespace alone is no key (a header's value is trimmed to "")
  idempotencyKey: z.string().min(1).refine((k) => k.trim() !== "", "must not be blank")
    .optional(),
}).strict();

/** Result of an append. */
export const AppendResponse = z.object({
  positions: z.array(z.number().int()),
  streamVersion: z.number().int(),
  duplicate: z.boolean(),
});

/** Idle SSE streams get a comment line this often. */
const KEEPALIVE_MS = 15_000;

const Position = decimal();
const ReadQuery = z.object({
  from: Position.optional(),
  limit: decimal(1, 10_000).default(1000),
});
/** `GET /v1/events` query: `ReadQuery` and the streams to follow. */
const EventsQuery = ReadQuery.extend({
  /**
   * Only these streams: ids, comma-separated; one ending in `*` is a prefix
   * (`session-*`, `playback-pb-1,validation-*`).
   */
  stream: z.string().min(1).max(2000).regex(
    /^[A-Za-z0-9._:-]+\*?(,[A-Za-z0-9._:-]+\*?)*$/,
    "expected stream ids, comma-separated; a trailing * matches a prefix (session-*)",
  ).optional(),
});

/**
 * Whether an event's stream is one a `stream=` filter names.
 *
 * @param filter the query value (undefined: every stream)
 * @returns the test
 */
function streamFilter(filter: string | undefined): (streamId: string) => boolean {
  if (filter === undefined) return () => true;
  const names = filter.split(",");
  const exact = new Set(names.filter((n) => !n.endsWith("*")));
  const prefixes = names.filter((n) => n.endsWith("*")).map((n) => n.slice(0, -1));
  return (id) => exact.has(id) || prefixes.some((p) => id.startsWith(p));
}
const StreamId = pathId();

describeRoute({
  method: "post",
  path: "/v1/streams/{id}/events",
  summary: "Append a batch of events to a stream atomically",
  tags: ["events"],
  parameters: [
    { name: "If-Match", in: "header", description: "Expected stream version (as expectedVersion)" },
    {
      name: "Idempotency-Key",
      in: "header",
      description:
        "A repeated key returns the first result; with another stream or other events, 422",
    },
  ],
  body: AppendBody,
  responses: {
    "201": { description: "Appended", schema: AppendResponse },
    "200": { description: "Duplicate idempotency key: nothing appended", schema: AppendResponse },
    "400": {
      description:
        "A body that does not fit (`issues` name `body.events.N.…`: a field, an ISO 8601 `meta.recordedAt`)",
    },
    "409": { description: "Expected version does not match" },
    "422": {
      description:
        "Idempotency key already used for another stream or other events (`idempotency_key_reused`); " +
        "a batch that breaks a session stream's rules (`invalid_session`, streams `session-*`: the " +
        "first event is SessionStarted naming the stream's session id, no second one, nothing after " +
        "SessionEnded, an ActionCompleted after its ActionPerformed, blobs stored first as declared, a " +
        "ScreenCaptured whose hierarchy parses and whose screenshot is an image); a batch " +
        "a playback or validation report could not read (`invalid_stream`, streams `playback-*` and " +
        "`validation-*`: the first event PlaybackStarted / ValidationStarted naming the stream's id, " +
        "no second one, only the stream's event types, nothing after its end, blobs stored first)",
    },
  },
});
describeRoute({
  method: "get",
  path: "/v1/streams/{id}/events",
  summary: "Read a stream from a version",
  tags: ["events"],
  parameters: [
    { name: "from", in: "query", type: "integer", description: "First stream version (default 1)" },
    {
      name: "limit",
      in: "query",
      type: "integer",
      description: "At most this many (default 1000, max 10000)",
    },
  ],
  responses: {
    "200": {
      description: "The events and the version to read from next",
      schema: ReadStreamResponse,
    },
    "404": { description: "No such stream" },
  },
});
describeRoute({
  method: "get",
  path: "/v1/events",
  summary:
    "The whole log as Server-Sent Events (id = position): replays from `from`, then follows appends; JSON page with Accept: application/json",
  tags: ["events"],
  parameters: [
    { name: "from", in: "query", type: "integer", description: "First position (default 1)" },
    {
      name: "limit",
      in: "query",
      type: "integer",
      description:
        "JSON page: at most this many (default 1000, max 10000); the stream is not limited",
    },
    {
      name: "stream",
      in: "query",
      description:
        "Only these streams: ids, comma-separated; a trailing * matches a prefix (`session-*`)",
    },
    {
      name: "Last-Event-ID",
      in: "header",
      type: "integer",
      description: "Resume after this position (empty: none, `from` holds)",
    },
  ],
  responses: {
    "200": {
      description:
        "Event stream: each message's `event:` is the event's type (`ActionPerformed`), `id:` its position, `data:` the stored event; with Accept: application/json, a page `{ events, next }` instead. A stored event it cannot read later on ends the stream with `event: error` (data: the error body)",
      content: { "text/event-stream": undefined, "application/json": EventsPage },
    },
    "500": {
      description:
        "The first event to send cannot be read (`unreadable_event`, naming its position): JSON, not a stream, so an EventSource stops reconnecting",
    },
  },
});

function expectedFromHeader(v: string | undefined): number | "no_stream" | "any" | undefined {
  if (v === undefined) return undefined;
  const s = v.trim().replace(/^W\//, "").replace(/^"(.*)"$/, "$1");
  if (s === "*") return "any";
  if (s === "no_stream") return "no_stream";
  return parseInput(Position, s, "header If-Match");
}

/**
 * Refuses an event with a field its schema does not know (a typo, or a field of another
 * version), which zod would strip without a word: what is stored is what was sent.
 */
function refuseUnknownFields(sent: readonly unknown[], parsed: readonly { type: string }[]): void {
  parsed.forEach((event, i) => {
    const dropped = droppedField(sent[i], event);
    if (dropped === undefined) return;
    const path = `body.events.${i}.${dropped}`;
    const message = `unknown field (not in the ${event.type} event)`;
    throw invalidRequest(`Invalid body: ${path}: ${message}`, [{ path, message }]);
  });
}

/**
 * A value given both as a header and in the body: either alone, or both when they agree.
 * Two that disagree are refused rather than one silently winning.
 */
function oneOf<T>(header: T | undefined, body: T | undefined, names: string): T | undefined {
  if (header !== undefined && body !== undefined && header !== body) {
    throw invalidRequest(`${names} disagree: ${JSON.stringify(header)} vs ${JSON.stringify(body)}`);
  }
  return header ?? body;
}

/** How often a ruled append re-checks a stream that changed under it before giving up. */
const SESSION_APPEND_TRIES = 5;

/**
 * What a ruled stream holds as its rules look at it ({@linkcode rulesFor}): its version, and the
 * first rule a batch breaks against it.
 */
type RulesCheck = (
  events: NewEvent[],
) => Promise<{ version: number; broken: SessionRuleBreak | undefined }>;

/**
 * The rules of a stream an append keeps, by its id's prefix, with the code a broken one answers:
 * a session stream (`session-<id>`) the session's rules, as `cairn ingest` holds an events file to
 * them (`engine/formats/session_rules.ts`); a playback or validation stream (`playback-<id>`,
 * `validation-<id>`) those that keep it readable by its report projection
 * (`engine/validation/run_stream_rules.ts`); any other stream none.
 */
function rulesFor(
  store: EventStore,
  streamId: string,
): { code: string; label: string; check: RulesCheck } | undefined {
  if (streamId.startsWith("session-")) {
    const sessionId = streamId.slice("session-".length);
    return {
      code: "invalid_session",
      label: "session",
      check: async (events) => {
        const before = await sessionSoFar(store, streamId, events);
        return {
          version: before.events,
          broken: checkSessionEvents(events, { before, sessionId }),
        };
      },
    };
  }
  const kind = runKindOf(streamId);
  if (kind === undefined) return undefined;
  return {
    code: "invalid_stream",
    label: kind,
    check: async (events) => {
      const before: StoredEvent[] = [];
      for await (const e of store.readStream(streamId)) before.push(e);
      return { version: before.length, broken: checkRunEvents(streamId, before, events) };
    },
  };
}

/**
 * Appends a batch to a stream that keeps rules ({@linkcode rulesFor}) and whose blobs are stored:
 * what the log takes can then be read by its projections, exported and read back. The rules are
 * checked against the stream as read, and the batch goes onto that version only (a client that
 * named none gets it pinned; a stream that moved meanwhile is read and checked again).
 *
 * @throws {ApiError} 422 (`invalid_session`, `invalid_stream`) naming `body.events.N.…`; nothing
 *   is appended
 */
async function appendWithRules(
  store: EventStore,
  streamId: string,
  rules: { code: string; label: string; check: RulesCheck },
  events: NewEvent[],
  options: AppendOptions,
): Promise<AppendResult> {
  const pin = options.expectedVersion === undefined || options.expectedVersion === "any";
  for (let tries = 1;; tries++) {
    const { version, broken: ruleBroken } = await rules.check(events);
    const broken = ruleBroken ?? await checkStoredBlobs(store, events);
    if (broken !== undefined) {
      // a keyed batch sent again after it was stored breaks the rules now (a second
      // SessionStarted): the store answers it as the duplicate it is
      if (options.idempotencyKey !== undefined && version > 0) {
        const stored = await storedResult(store, streamId, events, options.idempotencyKey);
        if (stored !== undefined) return stored;
      }
      const [path, message] = [`body.events.${broken.index}.${broken.field}`, broken.message];
      throw new ApiError(
        422,
        rules.code,
        `Invalid ${rules.label} stream ${streamId}: ${path}: ${message}`,
        [{ path, message }],
      );
    }
    const expectedVersion = pin
      ? (version === 0 ? "no_stream" as const : version)
      : options.expectedVersion!;
    try {
      return await store.append(streamId, events, { ...options, expectedVersion });
    } catch (err) {
      if (!(err instanceof ConcurrencyError) || !pin || tries >= SESSION_APPEND_TRIES) throw err;
    }
  }
}

/**
 * What a session stream holds, as the rules look at it: its length, whether it has ended, and
 * (read only when the batch completes an action it does not start) its started actions.
 */
async function sessionSoFar(
  store: EventStore,
  streamId: string,
  batch: readonly NewEvent[],
): Promise<SessionSoFar> {
  const info = await streamInfo(store, streamId);
  if (info === undefined) return { events: 0, ended: false, performed: () => false };
  let ended = false;
  for await (const e of store.readStream(streamId, { from: info.version, limit: 1 })) {
    ended = e.type === "SessionEnded";
  }
  const inBatch = new Set(
    batch.flatMap((e) => e.type === "ActionPerformed" ? [e.data.actionId] : []),
  );
  const wanted = new Set(
    batch.flatMap((e) =>
      e.type === "ActionCompleted" && !inBatch.has(e.data.actionId) ? [e.data.actionId] : []
    ),
  );
  const performed = new Set<string>();
  if (wanted.size > 0) {
    for await (const e of store.readStream(streamId)) {
      if (e.type === "ActionPerformed" && wanted.has(e.data.actionId)) {
        performed.add(e.data.actionId);
      }
    }
  }
  return { events: info.version, ended, performed: (id) => performed.has(id) };
}

/**
 * The result a keyed batch was stored with, when it was: the store answers a repeated key before
 * it checks the version, and a version no stream has (-1) makes sure nothing else is appended.
 */
async function storedResult(
  store: EventStore,
  streamId: string,
  events: NewEvent[],
  idempotencyKey: string,
): Promise<AppendResult | undefined> {
  try {
    return await store.append(streamId, events, { idempotencyKey, expectedVersion: -1 });
  } catch (err) {
    if (err instanceof ConcurrencyError) return undefined;
    throw err;
  }
}

/**
 * The events router (mounted under `/v1`).
 *
 * @param ctx the shared API context
 * @returns a hono router
 */
export function eventsRouter(ctx: ApiContext): Hono {
  const app = new Hono();

  app.post("/streams/:id/events", async (c) => {
    const streamId = parseInput(StreamId, c.req.param("id"), "path.id");
    const raw = await readJson(c);
    const body = parseInput(AppendBody, raw, "body");
    refuseUnknownFields((raw as { events: unknown[] }).events, body.events);
    body.events.forEach((e, i) => {
      // the stored schema takes any number; geometry coming in must fit a page (screen_point.ts)
      const far = geometryOutOfRange(e.type, e.data);
      if (far === undefined) return;
      const path = `body.events.${i}.data.${far.path}`;
      throw invalidRequest(`${path}: ${far.message}`, [{ path, message: far.message }]);
    });
    const expectedVersion = oneOf(
      expectedFromHeader(c.req.header("if-match")),
      body.expectedVersion,
      "header If-Match and body.expectedVersion",
    );
    const keyHeader = c.req.header("idempotency-key");
    if (keyHeader?.trim() === "") throw invalidRequest("header Idempotency-Key: must not be empty");
    const idempotencyKey = oneOf(
      keyHeader,
      body.idempotencyKey,
      "header Idempotency-Key and body.idempotencyKey",
    );
    const options: AppendOptions = {
      ...(expectedVersion === undefined ? {} : { expectedVersion }),
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    };
    const events = body.events as NewEvent[];
    const rules = rulesFor(ctx.store, streamId);
    const result = rules !== undefined
      ? await appendWithRules(ctx.store, streamId, rules, events, options)
      : await ctx.store.append(streamId, events, options);
    c.header("ETag", `"${result.streamVersion}"`);
    return c.json(result, result.duplicate ? 200 : 201);
  });

  app.get("/streams/:id/events", async (c) => {
    const streamId = parseInput(StreamId, c.req.param("id"), "path.id");
    const q = parseQuery(ReadQuery, c);
    const info = await streamInfo(ctx.store, streamId);
    if (!info) throw new NotFoundError(`No stream ${streamId}`);
    const events = [];
    for await (const e of ctx.store.readStream(streamId, { from: q.from ?? 1, limit: q.limit })) {
      events.push(e);
    }
    const last = events.at(-1);
    const next = last && last.streamVersion < info.version ? last.streamVersion + 1 : null;
    c.header("ETag", `"${info.version}"`);
    return c.json({ streamId, version: info.version, events, next });
  });

  app.get("/events", async (c) => {
    const q = parseQuery(EventsQuery, c);
    const wanted = streamFilter(q.stream);
    // an empty Last-Event-ID is no id at all (the SSE spec's reset): `from` holds
    const lastId = c.req.header("last-event-id") || undefined;
    const from = lastId !== undefined
      ? parseInput(Position, lastId, "header Last-Event-ID") + 1
      : q.from ?? 1;
    const accept = c.req.header("accept") ?? "";
    if (accept.includes("application/json") && !accept.includes("text/event-stream")) {
      // one more than the page: `next` is null at the end of the log, also for a full page
      const events = [];
      if (q.stream === undefined) {
        for await (const e of ctx.store.readAll({ from, limit: q.limit + 1 })) events.push(e);
      } else {
        for await (const e of ctx.store.readAll({ from })) {
          if (!wanted(e.streamId)) continue;
          events.push(e);
          if (events.length > q.limit) break;
        }
      }
      const more = events.length > q.limit;
      if (more) events.pop();
      return c.json({ events, next: more ? events.at(-1)!.position + 1 : null });
    }
    // the first event to send is read before the stream opens: one the log cannot read is a 500
    // naming its position, which ends an EventSource's reconnects (a 200 stream that only said
    // so in an `error` event would be reconnected to every 3 s, from the same event, forever)
    for await (const _ of ctx.store.readAll({ from, limit: 1 })) break;
    return streamSSE(c, async (stream) => {
      const ac = new AbortController();
      const end = () => ac.abort();
      stream.onAbort(end);
      // removed when this stream ends: the server's signal outlives every connection, and a
      // listener left on it would keep each closed stream (and its closure) alive
      ctx.shutdown?.addEventListener("abort", end, { once: true });
      if (ctx.shutdown?.aborted) ac.abort();
      // a comment line now and then keeps proxies from closing an idle stream
      const keepalive = setInterval(() => void stream.write(": keepalive\n\n"), KEEPALIVE_MS);
      try {
        for await (const e of ctx.store.subscribe({ from, signal: ac.signal })) {
          if (!wanted(e.streamId)) continue;
          // named by its type: `addEventListener("ActionPerformed", …)` takes one kind
          await stream.writeSSE({ id: String(e.position), event: e.type, data: JSON.stringify(e) });
          if (ac.signal.aborted) break;
        }
      } catch (err) {
        // an event the log cannot read (or a damaged file): say so, naming the position, rather
        // than ending as if the log had no more; the reconnect resumes at that event
        // (Last-Event-ID) and gets the 500 above, so an EventSource stops there
        const [status, body] = errorResponseOf(err);
        if (status >= 500) logServerError(c, err, status, body);
        if (!ac.signal.aborted) {
          await stream.writeSSE({ event: "error", data: JSON.stringify(body) });
        }
      } finally {
        clearInterval(keepalive);
        ctx.shutdown?.removeEventListener("abort", end);
      }
    });
  });

  return app;
}
