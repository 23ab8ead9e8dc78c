/**
 * The validation answers as the HTTP API and the MCP server give them: the report of
 * `validationReport` (report.ts) with the camelCase names the API's response layer gives every key,
 * the queued stub of a shared log, and the answer that starts one. The API names them in its
 * OpenAPI document; the MCP tools that answer them declare them as their output schemas.
 *
 * @module
 */
import { z } from "zod";
import { StepStability } from "../../events/mod.ts";

/** `POST /v1/sessions/:id/validations` (MCP `validate`) answer. */
export const AnsweredValidationStarted = z.object({
  status: z.enum(["running", "queued"]),
  validationId: z.string(),
});

/** `GET /v1/validations/:id` (and its stop's, MCP `validation_results`) answer: the report. */
export const AnsweredValidationReport = z.object({
  validationId: z.string(),
  sessionId: z.string(),
  policy: z.enum(["authoring", "dev", "ci"]),
  status: z.enum(["running", "stable", "unstable", "failed"])
    .describe("running until the loop completes"),
  url: z.string().optional().describe("The url every replay opens, when one was given"),
  iterations: z.number().int().nonnegative().describe("Replays so far"),
  maxIterations: z.number().int().positive(),
  runs: z.array(z.object({
    iteration: z.number().int().positive(),
    playbackId: z.string(),
    passed: z.boolean(),
    steps: z.array(StepStability),
  })).describe("Each replay: its playback, whether every step passed, each step's verdict"),
  steps: z.array(StepStability)
    .describe("Per step: the final verdict once done (the latest replay's while running)"),
  trail: z.string().describe("The trail YAML: the latest replayed, or the final one once done"),
  message: z.string().optional().describe("Why it is unstable or failed"),
});

/** `GET /v1/validations/:id` of a validation queued on a shared (PostgreSQL) log, not started. */
export const AnsweredValidationQueued = z.object({
  status: z.literal("queued"),
  validationId: z.string(),
  attempts: z.number().int().nonnegative(),
});
