/**
 * Sessions over HTTP: the list of capture sessions with their `SessionStarted` summary, a
 * session's timeline, and its state at any position (time travel).
 *
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { type EventStore, NotFoundError, streamInfo } from "../events/mod.ts";
import {
  AmbiguousIdError,
  AnsweredSessionState,
  AnsweredStateAt,
  AnsweredTimeline,
  listSessions,
  matchRun,
  RUN_KINDS,
  stateAt,
  summarizeEvent,
} from "../engine/timeline/mod.ts";
import type { ApiContext } from "./app.ts";
import { decimal, invalidRequest, noQuery, parseInput, parseQuery, pathId } from "./errors.ts";
import { describeRoute } from "./openapi.ts";
import { bareId } from "./_ids.ts";
import { MAX_SHEET_COLUMNS, sessionSheet } from "../engine/timeline/mod.ts";
import { SessionEnded, SessionStarted } from "../events/mod.ts";
import { IsoDateTime } from "../events/mod.ts";

/** `GET /v1/sessions` answer. */
export const SessionsList = z.object({
  sessions: z.array(z.object({
    streamId: z.string(),
    sessionId: z.string(),
    version: z.number().int(),
    firstPosition: z.number().int(),
    lastPosition: z.number().int(),
    /** The first event's `meta.recordedAt`. */
    createdAt: IsoDateTime,
    started: SessionStarted.nullable(),
    ended: SessionEnded.nullable(),
  })),
  /** Present when a stored session stream could not be read: left out of `sessions`. */
  unreadable: z.array(z.object({
    streamId: z.string(),
    code: z.literal("unreadable_event"),
    message: z.string(),
  })).optional(),
});

/** `GET /v1/sessions/:id/timeline` answer. */
export const Timeline = AnsweredTimeline;
/** A run's state at a position (time travel). */
export const SessionState = AnsweredSessionState;
/** `GET /v1/sessions/:id/state` answer. */
export const SessionStateResponse = AnsweredStateAt;

const NO_SESSION = { description: "No such session (`No session <id>`)" };

const SessionId = pathId();
const StateQuery = z.object({ at: decimal().optional() });
const SheetQuery = z.object({
  at: decimal().optional(),
  columns: decimal(1, MAX_SHEET_COLUMNS).default(4),
});
const TimelineQuery = z.object({
  from: decimal(1).default(1),
  limit: decimal(1, 10_000).default(1000),
});

describeRoute({
  method: "get",
  path: "/v1/sessions",
  summary: "Capture sessions (streams session-*), oldest first, with their SessionStarted data",
  tags: ["sessions"],
  responses: {
    "200": {
      description:
        "`{ sessions }`; with `unreadable: [{ streamId, code, message }]` when a stored session stream's first or last event cannot be read (unreadable_event): it is left out, the others listed. A session stream that does not start with SessionStarted is listed with `started: null`",
      schema: SessionsList,
    },
  },
});
describeRoute({
  method: "get",
  path: "/v1/sessions/{id}/state",
  summary: "Time travel: the session's state after global position `at` (default: latest)",
  tags: ["sessions"],
  parameters: [{ name: "at", in: "query", type: "integer", description: "Global position" }],
  responses: {
    "200": {
      description: "`{ streamId, at, state }`: the screen, step, memory, last action…",
      schema: SessionStateResponse,
    },
    "400": { description: "`at` before the session's first event, or not a position" },
    "404": NO_SESSION,
  },
});
describeRoute({
  method: "get",
  path: "/v1/sessions/{id}/sheet.png",
  summary:
    "The timeline as one PNG: a contact sheet of the screenshots up to `at` (the last 60), each with its step and action",
  tags: ["sessions"],
  parameters: [
    {
      name: "at",
      in: "query",
      type: "integer",
      description: "Last global position (default: the end)",
    },
    {
      name: "columns",
      in: "query",
      type: "integer",
      description: `Tiles a row (1-${MAX_SHEET_COLUMNS}, default 4)`,
    },
  ],
  responses: {
    "200": { description: "The sheet", mediaType: "image/png" },
    "404": { description: "No such session, or no screenshots up to `at`" },
  },
});
describeRoute({
  method: "get",
  path: "/v1/sessions/{id}/timeline",
  summary:
    "The session's events as one-line summaries (position, time, type, summary); `id` may also be a playback or validation stream id (playback-…, validation-…)",
  tags: ["sessions"],
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
    "200": { description: "One line an event", schema: Timeline },
    "404": NO_SESSION,
  },
});

/**
 * The sessions router (mounted under `/v1`).
 *
 * @param ctx the shared API context
 * @returns a hono router
 */
export function sessionsRouter(ctx: ApiContext): Hono {
  const app = new Hono();

  app.get("/sessions", async (c) => {
    noQuery(c);
    // a stream whose first or last event cannot be read (a corrupt row, an event of a schema
    // version this build does not know) is left out and named, not the whole list failed
    const unreadable: { streamId: string; code: "unreadable_event"; message: string }[] = [];
    const sessions = await listSessions(ctx.store, (streamId, err) => {
      unreadable.push({ streamId, code: "unreadable_event", message: err.message });
    });
    return c.json(unreadable.length > 0 ? { sessions, unreadable } : { sessions });
  });

  app.get("/sessions/:id/state", async (c) => {
    const given = parseInput(SessionId, c.req.param("id"), "path.id");
    const q = parseQuery(StateQuery, c);
    const streamId = await timelineStream(ctx.store, given);
    if (q.at !== undefined) {
      // positions are the log's: one before the session's first event names no state of it
      // (as `cairn history --at`)
      const info = await streamInfo(ctx.store, streamId);
      if (info && q.at < info.firstPosition) {
        const message =
          `at ${q.at} is before this session's first event (position ${info.firstPosition}): ` +
          `${streamId} spans positions ${info.firstPosition}–${info.lastPosition}`;
        throw invalidRequest(message, [{ path: "query.at", message }]);
      }
    }
    const state = await stateAt(ctx.store, streamId, q.at ?? Infinity);
    return c.json({ streamId, at: q.at ?? null, state });
  });

  app.get("/sessions/:id/sheet.png", async (c) => {
    const given = parseInput(SessionId, c.req.param("id"), "path.id");
    const q = parseQuery(SheetQuery, c);
    const streamId = await timelineStream(ctx.store, given);
    const { png } = await sessionSheet(ctx.store, streamId, {
      columns: q.columns,
      ...(q.at === undefined ? {} : { at: q.at }),
    });
    return c.body(png, 200, { "Content-Type": "image/png" });
  });

  app.get("/sessions/:id/timeline", async (c) => {
    const given = parseInput(SessionId, c.req.param("id"), "path.id");
    const q = parseQuery(TimelineQuery, c);
    const streamId = await timelineStream(ctx.store, given);
    const timeline = [];
    for await (const e of ctx.store.readStream(streamId, { from: q.from, limit: q.limit })) {
      timeline.push({
        position: e.position,
        streamVersion: e.streamVersion,
        recordedAt: e.meta.recordedAt,
        type: e.type,
        summary: summarizeEvent(e),
      });
    }
    return c.json({ streamId, timeline });
  });

  return app;
}

/**
 * The stream a state, timeline or sheet reads, by the one id rule `cairn history` takes
 * ({@linkcode matchRun}): a session, playback or validation id as printed (`pb-…`), its stream id,
 * or the start of exactly one. None: 404 `No session …`; several: 400.
 */
export async function timelineStream(store: EventStore, given: string): Promise<string> {
  let streamId: string | null;
  try {
    streamId = await matchRun(store, given);
  } catch (err) {
    if (err instanceof AmbiguousIdError) {
      throw invalidRequest(err.message, [{ path: "path.id", message: err.message }]);
    }
    throw err;
  }
  if (streamId === null) {
    const kind = RUN_KINDS.find((k) => given.startsWith(`${k}-`)) ?? "session";
    throw new NotFoundError(`No ${kind} ${bareId(kind, given)}`);
  }
  return streamId;
}
