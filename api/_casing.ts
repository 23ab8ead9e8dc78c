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
