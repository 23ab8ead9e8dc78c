/**
 * The playback report as the HTTP API and the MCP server answer it: {@linkcode PlaybackReport}
 * (and the screenshots' blob urls the API adds) with the camelCase names the API's response
 * layer gives every key. The API names it in its OpenAPI document; the MCP tool that answers it
 * declares it as its output schema.
 *
 * @module
 */
import { z } from "zod";

/** One action's result in a playback report, as answered. */
export const AnsweredActionResult = z.object({
  index: z.number().int().describe("Position in the playback, from 0"),
  sourceIndex: z.number().int().optional()
    .describe("The action's number in its source when it is not index (an action was added)"),
  added: z.literal(true).optional().describe("Cairn added it (opens the page first)"),
  action: z.string(),
  status: z.enum(["ok", "failed", "healed", "skipped"]),
  durationMs: z.number(),
  description: z.string().optional(),
  error: z.string().optional(),
  errorCode: z.string().optional(),
  likelyCause: z.string().optional(),
  selectorUsed: z.string().optional(),
  healedSelector: z.string().optional(),
  healedLevel: z.number().int().optional(),
  pageUrl: z.string().optional(),
  originalUrl: z.string().optional(),
  screenshotPath: z.string().optional(),
  screenshotHash: z.string().optional(),
  screenshotUrl: z.string().optional().describe("`/v1/blobs/<hash>` of its screenshot"),
  warning: z.string().optional(),
  playerActions: z.array(z.string()).optional(),
  navigationWait: z.string().optional(),
  navigationMs: z.number().optional(),
  value: z.string().optional(),
  storeAs: z.string().optional(),
  tried: z.array(z.object({ strategy: z.string(), selector: z.string(), matches: z.number() }))
    .optional(),
});

/** `GET /v1/playbacks/:id` (and its stop's) answer: the playback report, camelCase. */
export const AnsweredPlaybackReport = z.object({
  status: z.enum(["running", "completed", "failed"]),
  playbackId: z.string(),
  recordingId: z.string().optional(),
  source: z.string(),
  testId: z.string().optional(),
  testBoundary: z.object({
    testId: z.string(),
    startedAt: z.string(),
    endedAt: z.string().optional(),
  }).optional(),
  timing: z.enum(["fast", "recorded"]),
  onError: z.enum(["continue", "skip_dependent", "stop"]),
  startedAt: z.string(),
  actionsExecuted: z.number().int(),
  actionsFailed: z.number().int(),
  actionsHealed: z.number().int(),
  actionsSkipped: z.number().int(),
  actionsTotal: z.number().int(),
  durationMs: z.number(),
  error: z.string().optional().describe("Why the playback ended early (a stop names its action)"),
  warnings: z.array(z.string()),
  screenshots: z.array(z.string()),
  results: z.array(AnsweredActionResult),
  video: z.object({
    path: z.string(),
    durationMs: z.number().optional(),
    frames: z.number().int().optional(),
  }).optional().describe("The video recorded (video: true): its file on the server"),
  videoError: z.string().optional()
    .describe("Why no video was recorded although one was asked for"),
  videoUrl: z.string().optional().describe("`/v1/playbacks/<id>/video`, when it has one"),
  screenshotBlobs: z.array(z.object({
    index: z.number().int(),
    hash: z.string(),
    url: z.string(),
    path: z.string().optional(),
  })),
});

/** `GET /v1/playbacks/:id` of a playback queued on a shared (PostgreSQL) log, not started yet. */
export const AnsweredPlaybackQueued = z.object({
  status: z.literal("queued"),
  playbackId: z.string(),
  attempts: z.number().int(),
});
