/**
 * One casing for request bodies: camelCase. The few routes whose bodies took snake_case names
 * (`on_error`, `timeout_ms`, `max_iterations`, …) take the camelCase ones; the old names are
 * still accepted for one release, answered with a `Deprecation: true` header and a `Warning`
 * naming the new ones. The routes' handlers read the old names: this layer renames the camelCase
 * keys to them before the handler reads the body, so their checks and messages are unchanged.
 *
 * @module
 */
import type { Context, Next } from "hono";

/** The snake_case body keys of each route, by their camelCase names. */
export const CAMEL_BODY_KEYS: {
  path: RegExp;
  openApiPath: string;
  keys: Record<string, string>;
}[] = [
  {
    path: /^\/v1\/playbacks\/?$/,
    openApiPath: "/v1/playbacks",
    keys: {
      recordingId: "recording_id",
      onError: "on_error",
      testId: "test_id",
      autoBoundary: "auto_boundary",
      valueOverrides: "value_overrides",
      timeoutMs: "timeout_ms",
    },
  },
  {
    path: /^\/v1\/sessions\/[^/]+\/validations\/?$/,
    openApiPath: "/v1/sessions/{id}/validations",
    keys: { maxIterations: "max_iterations" },
  },
];

/**
 * The middleware: renames a JSON body's camelCase keys to the names the handler reads, and
 * marks a request that used the old names deprecated.
 *
 * @returns a hono middleware
 */
export function camelCaseBodies() {
  return async (c: Context, next: Next) => {
    const route = c.req.method === "POST"
      ? CAMEL_BODY_KEYS.find((r) => r.path.test(c.req.path))
      : undefined;
    if (!route || !(c.req.header("content-type") ?? "").includes("json")) return await next();
    const text = await c.req.raw.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return await next(); // the handler answers what is wrong with it
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) return await next();
    const given = body as Record<string, unknown>;
    const old = Object.values(route.keys).filter((k) => Object.hasOwn(given, k));
    const renamed: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(given)) {
      const snake = route.keys[key];
      // both names of one field: the handler's check names the old one as unknown
      renamed[snake !== undefined && !Object.hasOwn(given, snake) ? snake : key] = value;
    }
    if (old.length > 0) {
      const names = old.map((k) => `${k} -> ${camelOf(route.keys, k)}`).join(", ");
      c.header("Deprecation", "true");
      c.header("Warning", `299 cairn "snake_case body names are deprecated: ${names}"`);
    }
    const raw = c.req.raw;
    c.req.raw = new Request(raw.url, {
      method: raw.method,
      headers: raw.headers,
      body: JSON.stringify(renamed),
    });
    await next();
  };
}

function camelOf(keys: Record<string, string>, snake: string): string {
  return Object.entries(keys).find(([, s]) => s === snake)?.[0] ?? snake;
}

/**
 * A route's request body JSON Schema with its camelCase names (for the OpenAPI document).
 *
 * @param path the OpenAPI path
 * @param schema the body's JSON Schema (snake_case names, as the handler reads them)
 * @returns the schema with camelCase property names
 */
export function camelBodySchema(path: string, schema: unknown): unknown {
  const route = CAMEL_BODY_KEYS.find((r) => r.openApiPath === path);
  if (!route || typeof schema !== "object" || schema === null) return schema;
  const s = schema as { properties?: Record<string, unknown>; required?: string[] };
  if (!s.properties) return schema;
  const toCamel = (k: string) => camelOf(route.keys, k);
  return {
    ...s,
    properties: Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [toCamel(k), v])),
    ...(s.required ? { required: s.required.map(toCamel) } : {}),
  };
}

/**
 * Keys whose values are user data, answered as given or stored, their own keys never renamed:
 * memory and variable names, value overrides (by action number), a stored event's `data`
 * payload, header maps, a trail (in its file format's own names).
 */
export const USER_DATA_KEYS: ReadonlySet<string> = new Set([
  "memory",
  "trail",
  "secretMemory",
  "shownMemory",
  "variables",
  "valueOverrides",
  "data",
  "headers",
]);

/** A snake_case name: lower-case words joined by `_` (`playback_id`, `actions_failed`). */
const SNAKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

/**
 * A key in camelCase: a snake_case name's words joined (`playback_id` → `playbackId`), any other
 * key as it is (`storeAs`, `application/json`, `__proto__`, `_private`).
 *
 * @param key a JSON object key
 * @returns the key the API answers with
 * @example
 * ```ts
 * if (camelKey("screenshot_url") !== "screenshotUrl" || camelKey("storeAs") !== "storeAs") {
 *   throw new Error();
 * }
 * ```
 */
export function camelKey(key: string): string {
  let named = camelNames.get(key);
  if (named === undefined) {
    named = SNAKE.test(key) ? key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : key;
    if (camelNames.size < 10_000) camelNames.set(key, named);
  }
  return named;
}

/** The names {@linkcode camelKey} gave, by key (a report repeats the same few keys). */
const camelNames = new Map<string, string>();

/**
 * A JSON value with every object key in camelCase, except inside the values of
 * {@linkcode USER_DATA_KEYS} (user data, answered as it is).
 *
 * @param value parsed JSON
 * @returns a copy with camelCase keys
 * @example
 * ```ts
 * const v = camelKeys({ playback_id: "p", memory: { card_no: "1" } }) as Record<string, unknown>;
 * if (v.playbackId !== "p" || JSON.stringify(v.memory) !== '{"card_no":"1"}') throw new Error();
 * ```
 */
export function camelKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const name = camelKey(key);
    out[name] = USER_DATA_KEYS.has(name) ? v : camelKeys(v);
  }
  return out;
}

/**
 * Responses answered as they are: documents in a format of their own (the OpenAPI document, a
 * `cairn.capture/v1` file), the MCP endpoint (JSON-RPC; its tools' results come from the routes,
 * already camelCase).
 */
const AS_IS = [/^\/openapi\.json$/, /^\/mcp(?:\/|$)/, /^\/v1\/blaze\/sessions\/[^/]+\/capture\/?$/];

/** A snake_case key in JSON text (`"playback_id":`), or a string that looks like one. */
const SNAKE_KEY_TEXT = /"[a-z][a-z0-9]*(?:_[a-z0-9]+)+"\s*:/;

/** The request header that asks for the old snake_case response names (for one release). */
export const CASING_HEADER = "Cairn-Casing";

/**
 * The middleware: answers every JSON body with camelCase keys ({@linkcode camelKeys}), and names
 * an error's fields (`issues[].path`, the paths in its message) by their camelCase body names.
 * A request with `Cairn-Casing: snake` gets the old names, marked deprecated, for one release.
 *
 * @returns a hono middleware
 */
export function camelCaseResponses() {
  return async (c: Context, next: Next) => {
    await next();
    const res = c.res;
    const type = res.headers.get("content-type") ?? "";
    if (!/^application\/json\b/i.test(type) || AS_IS.some((p) => p.test(c.req.path))) return;
    if ((c.req.header(CASING_HEADER) ?? "").trim().toLowerCase() === "snake") {
      c.header("Deprecation", "true");
      c.header(
        "Warning",
        `299 cairn "${CASING_HEADER}: snake is deprecated: read camelCase names"`,
      );
      return;
    }
    const text = await res.clone().text();
    const route = CAMEL_BODY_KEYS.find((r) => r.path.test(c.req.path));
    // nothing to rename (an event page, a tool result): answered as it is, unparsed
    if (!SNAKE_KEY_TEXT.test(text) && !(route && res.status >= 400)) return;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return;
    }
    const out = camelKeys(body) as { error?: { message?: unknown; issues?: unknown } };
    if (route && out?.error) renameErrorFields(out.error, route.keys);
    const headers = new Headers(res.headers);
    headers.delete("content-length");
    c.res = undefined; // the next assignment copies no header of the old response
    c.res = new Response(JSON.stringify(out), {
      status: res.status,
      statusText: res.statusText,
      headers,
    });
  };
}

/** An error's `issues[].path` and message with the route's camelCase body names. */
function renameErrorFields(
  error: { message?: unknown; issues?: unknown },
  keys: Record<string, string>,
): void {
  const rename = (text: string) =>
    Object.entries(keys).reduce(
      (t, [camel, snake]) => t.replace(new RegExp(`\\bbody\\.${snake}\\b`, "g"), `body.${camel}`),
      text,
    );
  if (typeof error.message === "string") error.message = rename(error.message);
  if (!Array.isArray(error.issues)) return;
  for (const issue of error.issues as { path?: unknown; message?: unknown }[]) {
    if (typeof issue?.path === "string") issue.path = rename(issue.path);
    if (typeof issue?.message === "string") issue.message = rename(issue.message);
  }
}

/**
 * A response's JSON Schema with the names the API answers with: every `properties` name and
 * `required` entry in camelCase ({@linkcode camelKey}), the schemas of user data
 * ({@linkcode USER_DATA_KEYS}) as they are.
 *
 * @param schema a JSON Schema (of what a route answers, as its handler builds it)
 * @returns the schema of the answer
 */
export function camelResponseSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(camelResponseSchema);
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && value !== null && typeof value === "object") {
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, s]) => {
          const camel = camelKey(name);
          return [camel, USER_DATA_KEYS.has(camel) ? s : camelResponseSchema(s)];
        }),
      );
    } else if (key === "required" && Array.isArray(value)) {
      out[key] = value.map((n) => typeof n === "string" ? camelKey(n) : n);
    } else out[key] = camelResponseSchema(value);
  }
  return out;
}
