/**
 * The one place HTTP errors are shaped: `{ error: { code, message, issues? } }` with the
 * status that fits (DESIGN.md "Interfaces"). `createApp` installs {@linkcode handleError} as
 * `app.onError`, so routers just throw.
 *
 * @module
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import { ConcurrencyError, IdempotencyError, NotFoundError } from "../events/event_store.ts";

/** One problem with a request, by path. */
export interface ApiIssue {
  path: string;
  message: string;
}

/** The JSON body of every error response. */
export interface ApiErrorBody {
  error: { code: string; message: string; issues?: ApiIssue[] };
}

/** An error a router throws to answer with a given status and code. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly issues?: ApiIssue[],
  ) {
    super(message);
  }
}

/**
 * A 400 `invalid_request`.
 *
 * @param message what is wrong
 * @param issues the fields at fault
 * @returns the error to throw
 */
export function invalidRequest(message: string, issues?: ApiIssue[]): ApiError {
  return new ApiError(400, "invalid_request", message, issues);
}

/**
 * Parses a value with a zod schema; a failure becomes a 400 naming `where` and the fields.
 *
 * @param schema the schema
 * @param value the input (query, body)
 * @param where `"body"`, `"query"`, …
 * @returns the parsed value
 * @throws {ApiError} 400 `invalid_request` with `issues`
 */
export function parseInput<T extends z.ZodType>(
  schema: T,
  value: unknown,
  where: string,
): z.output<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = zodIssues(r.error, where);
  // "Invalid path: path.id: …", not "Invalid path.id: path.id: …"
  const part = where.split(/[. ]/)[0];
  throw invalidRequest(
    `Invalid ${part}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
    issues,
  );
}

/**
 * Reads a JSON body; malformed JSON becomes a 400.
 *
 * @param c the hono context
 * @returns the parsed JSON
 * @throws {ApiError} 400 `invalid_request`
 */
export async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  try {
    return JSON.parse(text);
  } catch (err) {
    throw invalidRequest(`Body is not valid JSON: ${(err as Error).message}`);
  }
}

function zodIssues(err: z.ZodError, where: string): ApiIssue[] {
  return err.issues.map((i) => ({
    path: [where, ...i.path.map(String)].join("."),
    message: i.message,
  }));
}

/**
 * Maps any thrown error to a JSON error response (the `app.onError` handler).
 *
 * @param err what a handler threw
 * @param c the hono context
 * @returns the error response
 */
export function handleError(err: unknown, c: Context): Response {
  const [status, body] = describe(err);
  if (status >= 500) console.error("cairn serve:", err);
  return c.json(body, status);
}

function describe(err: unknown): [ContentfulStatusCode, ApiErrorBody] {
  const body = (code: string, message: string, issues?: ApiIssue[]): ApiErrorBody => ({
    error: issues ? { code, message, issues } : { code, message },
  });
  if (err instanceof ApiError) return [err.status, body(err.code, err.message, err.issues)];
  if (err instanceof z.ZodError) {
    const issues = zodIssues(err, "body");
    return [400, body("invalid_request", "Invalid request", issues)];
  }
  if (err instanceof SyntaxError) return [400, body("invalid_request", err.message)];
  if (err instanceof NotFoundError) return [404, body("not_found", err.message)];
  if (err instanceof ConcurrencyError) return [409, body("conflict", err.message)];
  if (err instanceof IdempotencyError) {
    return [422, body("idempotency_key_reused", err.message)];
  }
  if (err instanceof HTTPException) {
    const s = err.status as ContentfulStatusCode;
    if (s === 413) return [413, body("payload_too_large", "Request body is too large")];
    if (s === 401) return [401, body("unauthorized", err.message || "Unauthorized")];
    return [s, body(s >= 500 ? "internal" : "bad_request", err.message || "Request failed")];
  }
  return [500, body("internal", "Internal server error")];
}
