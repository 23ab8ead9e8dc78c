/**
 * The timeline answers as the HTTP API and the MCP server give them: a run's timeline, and its state
 * at a position (time travel, `stateAt`), the events' data as stored, memory names as
 * given. The API names them in its OpenAPI document; the MCP `history` tool declares them as its
 * output schema.
 *
 * @module
 */
import { z } from "zod";
import {
  ActionCompleted,
  ActionPerformed,
  BlobRef,
  IsoDateTime,
  PlaybackActionCompleted,
  PlaybackActionResolved,
  PlaybackCompleted,
  PlaybackStarted,
  SessionEnded,
  SessionStarted,
} from "../../events/mod.ts";

/** `GET /v1/sessions/:id/timeline` answer. */
export const AnsweredTimeline = z.object({
  streamId: z.string(),
  timeline: z.array(z.object({
    position: z.number().int(),
    streamVersion: z.number().int(),
    recordedAt: IsoDateTime,
    type: z.string(),
    summary: z.string(),
  })),
});

/**
 * A run's state at a position (time travel, `stateAt` of `engine/timeline/`): the events' data
 * it holds as stored, memory names as given.
 */
export const AnsweredSessionState = z.object({
  position: z.number().int().nonnegative().describe("The last event folded (0 before the first)"),
  streamVersion: z.number().int().nonnegative(),
  recordedAt: IsoDateTime.nullable().describe("When the last event folded was recorded"),
  session: SessionStarted.nullable().describe("How the session started (null: not a session)"),
  step: z.object({ index: z.number().int().nonnegative(), text: z.string(), ended: z.boolean() })
    .nullable(),
  screen: z.object({
    position: z.number().int().positive(),
    hierarchy: BlobRef.nullable()
      .describe("null: a replayed action's screenshot with no hierarchy stored"),
    format: z.string(),
    screenshot: BlobRef.nullable(),
    url: z.string().nullable(),
  }).nullable().describe("The latest screen"),
  memory: z.record(z.string(), z.string()),
  lastAction: z.object({
    position: z.number().int().positive(),
    action: ActionPerformed,
    result: ActionCompleted.nullable(),
  }).nullable().describe("A session's last action and, once it completed, its result"),
  lastPlaybackAction: z.object({
    position: z.number().int().positive(),
    index: z.number().int().nonnegative(),
    resolved: PlaybackActionResolved.nullable(),
    result: PlaybackActionCompleted.nullable(),
  }).nullable().describe("A playback's last action: how it was resolved, its result"),
  playback: PlaybackStarted.nullable(),
  playbackEnded: PlaybackCompleted.nullable(),
  url: z.string().nullable(),
  ended: SessionEnded.nullable(),
  counts: z.object({
    events: z.number().int().nonnegative(),
    actions: z.number().int().nonnegative(),
    screens: z.number().int().nonnegative(),
    failures: z.number().int().nonnegative(),
  }),
});

/** `GET /v1/sessions/:id/state` answer. */
export const AnsweredStateAt = z.object({
  streamId: z.string(),
  at: z.number().int().nullable().describe("The position asked for (null: the latest)"),
  state: AnsweredSessionState,
});
