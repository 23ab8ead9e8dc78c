/**
 * The one place HTTP errors are shaped: `{ error: { code, message, issues? } }` with the
 * status that fits (docs/architecture.md "Interfaces"). `createApp` installs {@linkcode handleError} as
 * `app.onError`, so routers just throw.
 *
 * @module
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { z } from "zod";
import {
  ConcurrencyError,
  IdempotencyError,
  InvalidStreamError,
  NotFoundError,
  StoreFileError,
} from "../events/mod.ts";
import { UnreadableEventError } from "../events/mod.ts";
import { jsonNestingError, MAX_NESTING } from "../engine/input/mod.ts";
import { zodIssueList } from "../engine/input/mod.ts";

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
 * Reads a JSON body; malformed JSON becomes a 400, a body of another media type a 415.
 *
 * @param c the hono context
 * @param empty what an empty body means (default: none, a 400)
 * @returns the parsed JSON
 * @throws {ApiError} 400 `invalid_request`, 415 `unsupported_media_type`
 */
export async function readJson(c: Context, empty?: unknown): Promise<unknown> {
  const type = c.req.header("content-type");
  const text = await c.req.text();
  // a JSON body says so: a page on another site can send text/plain or a form without a
  // preflight, never application/json
  if (text !== "" && !isJsonType(type)) {
    throw new ApiError(
      415,
      "unsupported_media_type",
      `Content-Type must be application/json, not ${type === undefined ? "absent" : type}`,
    );
  }
  if (text.trim() === "" && empty !== undefined) return empty;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw invalidRequest(`Body is not valid JSON: ${(err as Error).message}`);
  }
  // the limit files are read with (engine/input/nesting.ts), checked without recursion: what the log
  // takes over HTTP exports to files ingest reads back (an export nests no deeper than the body)
  const tooDeep = jsonNestingError(value);
  if (tooDeep !== undefined) {
    const message = `nested deeper than ${MAX_NESTING} levels`;
    const path = `body.${tooDeep.slice(0, tooDeep.lastIndexOf(`: ${message}`))}`;
    throw invalidRequest(`${path}: ${message}`, [{ path, message }]);
  }
  return value;
}

function isJsonType(type: string | undefined): boolean {
  const essence = (type ?? "").split(";")[0]!.trim().toLowerCase();
  return essence === "application/json" || /^application\/[\w.+-]+\+json$/.test(essence);
}

/**
 * An integer in a query string or header, written in decimal digits alone: not `""`, `0x2`,
 * `1e3` or `1.0`, which `Number()` would take.
 *
 * @param min the smallest accepted
 * @param max the largest accepted (default the largest safe integer)
 * @returns the schema (string in, number out)
 */
export function decimal(min = 0, max = Number.MAX_SAFE_INTEGER) {
  // digits alone are an integer: `.int()` would repeat `.max()`'s complaint above 2^53
  return z.string().regex(/^\d+$/, "expected an integer in decimal digits").transform(Number)
    .pipe(z.number().min(min).max(max));
}

/**
 * Parses a query string with a zod object schema, as bodies are: a parameter the schema does
 * not name, or one given more than once, is a 400 naming it (not silently dropped or the first
 * taken).
 *
 * @param schema the query's schema (an object of string fields)
 * @param c the hono context
 * @returns the parsed query
 * @throws {ApiError} 400 `invalid_request` with `issues` (`query.<name>`)
 */
export function parseQuery<T extends z.ZodObject>(schema: T, c: Context): z.output<T> {
  const known = Object.keys(schema.shape);
  const issues: ApiIssue[] = [];
  const single: Record<string, string> = {};
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (!known.includes(name)) {
      issues.push({
        path: `query.${name}`,
        message: `unknown parameter (${
          known.length ? `this route takes ${known.join(", ")}` : "this route takes none"
        })`,
      });
    } else if (values.length > 1) {
      issues.push({ path: `query.${name}`, message: `given ${values.length} times: give it once` });
    } else single[name] = values[0]!;
  }
  if (issues.length > 0) {
    throw invalidRequest(
      `Invalid query: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`,
      issues,
    );
  }
  return parseInput(schema, single, "query");
}

const NoQuery = z.object({});

/**
 * Refuses any query parameter (a route that takes none): 400 naming it.
 *
 * @param c the hono context
 * @throws {ApiError} 400 `invalid_request`
 */
export function noQuery(c: Context): void {
  parseQuery(NoQuery, c);
}

/**
 * An id in a URL path: 1 to `max` letters, digits, `.`, `_`, `-` (and `:` with `colon`),
 * never `.` or `..`, which URL parsers fold away before a request is sent.
 *
 * @param max the longest accepted
 * @param colon whether `:` is allowed
 * @returns the schema
 */
export function pathId(max = 200, colon = true) {
  const chars = colon ? /^[A-Za-z0-9._:-]+$/ : /^[A-Za-z0-9._-]+$/;
  return z.string().min(1).max(max)
    .regex(chars, colon ? "letters, digits, . _ : -" : "letters, digits, . _ -")
    .refine((s) => s !== "." && s !== "..", "must not be . or ..");
}

function zodIssues(err: z.ZodError, where: string): ApiIssue[] {
  // an unknown key is named (`body.extra`), not its object (`body`)
  return zodIssueList(err).map((i) => ({ path: [where, ...i.path].join("."), message: i.message }));
}

/**
 * Maps any thrown error to a JSON error response (the `app.onError` handler).
 *
 * @param err what a handler threw
 * @param c the hono context
 * @returns the error response
 */
export function handleError(err: unknown, c: Context): Response {
  const [status, body] = errorResponseOf(err);
  if (status >= 500) logServerError(c, err, status, body);
  if (status === 401) c.header("WWW-Authenticate", 'Bearer realm="cairn"');
  return c.json(body, status);
}

/**
 * Logs a 5xx on stderr: an expected failure (a browser or device that failed a call: 502, 504;
 * a stored event or a database file that cannot be read) as one line; an unexpected error (500)
 * with its stack, which is what finding the bug needs.
 *
 * @param c the hono context (method and path)
 * @param err what was thrown
 * @param status the status it answers
 * @param body the error body it answers
 */
export function logServerError(
  c: Context,
  err: unknown,
  status: number,
  body: ApiErrorBody,
): void {
  const known = err instanceof ApiError || err instanceof HTTPException ||
    err instanceof UnreadableEventError || err instanceof StoreFileError;
  if (known) {
    console.error(
      `cairn serve: ${c.req.method} ${c.req.path}: ${status} ${body.error.code}: ${
        body.error.message.replace(/\s*\n\s*/g, " ")
      }`,
    );
  } else console.error("cairn serve:", err);
}

/**
 * The status and JSON body an error answers with (what {@linkcode handleError} sends; an SSE
 * stream that fails sends the body as an `error` event).
 *
 * @param err anything thrown
 * @returns the status and `{ error: { code, message, issues? } }`
 */
export function errorResponseOf(err: unknown): [ContentfulStatusCode, ApiErrorBody] {
  const body = (code: string, message: string, issues?: ApiIssue[]): ApiErrorBody => ({
    error: issues ? { code, message, issues } : { code, message },
  });
  if (err instanceof ApiError) return [err.status, body(err.code, err.message, err.issues)];
  if (err instanceof z.ZodError) {
    const issues = zodIssues(err, "body");
    return [400, body("invalid_request", "Invalid request", issues)];
  }
  // a fault of what is stored, not of the request: the log holds an event it cannot read
  // (`Stored event at position 50 is not valid JSON: …`), or its file is damaged or read-only
  if (err instanceof UnreadableEventError) return [500, body("unreadable_event", err.message)];
  if (err instanceof StoreFileError) {
    if (err.fault === "read-only") return [503, body("read_only", err.message)];
    return [500, body("store_unreadable", err.message)];
  }
  // what a request sent that does not parse (a trail's YAML, an import format)
  if (err instanceof SyntaxError) {
    return [400, body("invalid_request", err.message, syntaxIssues(err.message))];
  }
  if (err instanceof NotFoundError) return [404, body("not_found", err.message)];
  if (err instanceof InvalidStreamError) return [422, body("invalid_stream", err.message)];
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

/**
 * The issue a parse error of a body field names at its start (`body.trail:3:5: …`, as
 * `parseTrail` words it), with the line and column in the message: none for one naming no field.
 */
function syntaxIssues(message: string): ApiIssue[] | undefined {
  const m = /^(body(?:\.[\w-]+)*)(?::(\d+):(\d+))?: ([^]*)$/.exec(message);
  if (!m) return undefined;
  const at = m[2] === undefined ? "" : `line ${m[2]}, column ${m[3]}: `;
  return [{ path: m[1]!, message: `${at}${m[4]}` }];
}

/**
 * An absolute http(s) url (a page a browser may be sent to: never `file:` and the like).
 *
 * @returns the schema
 */
export function httpUrl() {
  return z.string().refine(isHttpUrl, "expected an http(s) url");
}

/**
 * Whether a string is an absolute http(s) url.
 *
 * @param url the string
 * @returns true for `http:` and `https:` urls
 * @example
 * ```ts
 * if (!isHttpUrl("http://127.0.0.1/") || isHttpUrl("file:///etc/hostname")) throw new Error();
 * ```
 */
export function isHttpUrl(url: string): boolean {
  return URL.canParse(url) && /^https?:$/.test(new URL(url).protocol);
}
