/**
 * The HTTP API as one hono app: auth, body limit, error mapping in one place, and one
 * `app.route()` line per resource router.
 *
 * To add a router: write `api/<resource>.ts` exporting `function <resource>Router(ctx:
 * ApiContext): Hono` (describe its routes with `describeRoute` from `./openapi.ts`), then add
 * one line under "Routers" below. Need more than the store? Add an optional field to
 * {@linkcode AppOptions} and {@linkcode ApiContext}.
 *
 * @module
 */
import { type Context, Hono, type Next } from "hono";
import { bodyLimit } from "hono/body-limit";
import { timingSafeEqual } from "node:crypto";
import type { EventStore } from "../events/mod.ts";
import { ApiError, handleError } from "./errors.ts";
import { describeRoute, openApiRouter } from "./openapi.ts";
import { eventsRouter } from "./events.ts";
import { blazeRouter } from "./blaze.ts";
import { recordRouter } from "./record.ts";
import { blobsRouter } from "./blobs.ts";
import { sessionsRouter } from "./sessions.ts";
import { viewRouter } from "./view.ts";
import { playbacksRouter } from "./playbacks.ts";
import { trailsRouter } from "./trails.ts";
import { validationsRouter } from "./validations.ts";
import { mcpRouter } from "../mcp/mod.ts";
import { camelCaseBodies, camelCaseResponses } from "./_casing.ts";

describeRoute({
  method: "post",
  path: "/mcp",
  operationId: "mcp",
  summary: "MCP (Streamable HTTP, stateless): the tools `cairn mcp` serves, as JSON-RPC",
  tags: ["mcp"],
  rawBody: "application/json",
  responses: {
    "200": { description: "The JSON-RPC answer (application/json)", mediaType: "application/json" },
    "202": { description: "A notification was accepted" },
  },
});

/** What every router receives: the shared store (and whatever else the app was given). */
export interface ApiContext {
  store: EventStore;
  /** Aborts when the server shuts down: long-lived responses (SSE) end on it. */
  shutdown?: AbortSignal;
  /**
   * Blaze sessions of a local client: the browser's own rule decides which pages open, and a
   * start may launch a browser for local files (see {@linkcode AppOptions}).
   */
  localPages?: boolean | ((req: Request) => boolean);
  /** Ends a run no live process runs (see {@linkcode AppOptions}). */
  endOrphanedRun?: (kind: "playback" | "validation", id: string) => Promise<boolean>;
  /** Ends a blaze session no live process holds (see {@linkcode AppOptions}). */
  endOrphanedSession?: (id: string) => Promise<boolean>;
}

/** Options of {@linkcode createApp}. */
export interface AppOptions {
  store: EventStore;
  /** When set, every request needs `Authorization: Bearer <token>`. */
  token?: string;
  /** Largest accepted request body in bytes (413 above). Default {@linkcode DEFAULT_BODY_LIMIT}. */
  bodyLimit?: number;
  /** Aborts when the server shuts down: long-lived responses (SSE) end on it. */
  shutdown?: AbortSignal;
  /**
   * The app serves a local client (the blaze daemon of the user's own CLI, holding its token;
   * `cairn mcp`): the API does not refuse a non-http(s) blaze url itself, the browser's
   * navigation rule does (`unsafe_url`, naming the scheme). `true`, or per request whether the
   * start's browser may open `file:` and `data:` pages (the daemon: the CLI's
   * `--allow-file-urls`). Default unset: a web session opens and navigates to http(s) pages
   * only, as playbacks do, so a client cannot read the server's files through a snapshot.
   */
  localPages?: boolean | ((req: Request) => boolean);
  /**
   * Ends a playback or validation this server does not run when the process that ran it is gone
   * (the stop routes' fallback before `409 not_owned`); false when it may still run. `serve`
   * tells by the log's runs lock.
   */
  endOrphanedRun?: (kind: "playback" | "validation", id: string) => Promise<boolean>;
  /**
   * Ends a blaze session this server does not hold, `interrupted`, when the process that held
   * it is gone (`tools/end`'s fallback before `409 not_owned`); false when it may still be
   * held. `serve` tells by the log's runs lock.
   */
  endOrphanedSession?: (id: string) => Promise<boolean>;
}

/** Default request body limit: 16 MiB. */
export const DEFAULT_BODY_LIMIT = 16 * 1024 * 1024;

/** The largest body limit `serve` takes: 1 GiB (a body is read into memory whole). */
export const MAX_BODY_LIMIT = 1024 * 1024 * 1024;

/**
 * Builds the API.
 *
 * @param options the store, an optional bearer token and body limit
 * @returns the hono app (`app.fetch` for `Deno.serve`, `app.request` in tests)
 * @example
 * ```ts
 * import { SqliteEventStore } from "../events/sqlite_event_store.ts";
 * const store = SqliteEventStore.open(":memory:");
 * const res = await createApp({ store }).request("/openapi.json");
 * if (res.status !== 200) throw new Error();
 * store.close();
 * ```
 */
export function createApp(options: AppOptions): Hono {
  const ctx: ApiContext = {
    store: options.store,
    ...(options.shutdown ? { shutdown: options.shutdown } : {}),
    ...(options.localPages ? { localPages: options.localPages } : {}),
    ...(options.endOrphanedRun ? { endOrphanedRun: options.endOrphanedRun } : {}),
    ...(options.endOrphanedSession ? { endOrphanedSession: options.endOrphanedSession } : {}),
  };
  const app = new Hono();
  app.onError(handleError);
  app.notFound((c) => {
    // a known path asked with another method: 405 with the methods it takes, not 404
    const allow = allowedMethods(app.routes, c.req.path);
    if (allow.length > 0) {
      c.header("Allow", allow.join(", "));
      return c.json({
        error: {
          code: "method_not_allowed",
          message: `${c.req.method} is not allowed on ${c.req.path} (allowed: ${allow.join(", ")})`,
        },
      }, 405);
    }
    return c.json(
      { error: { code: "not_found", message: `No route ${c.req.method} ${c.req.path}` } },
      404,
    );
  });
  if (options.token !== undefined) app.use("*", requireBearer(options.token));
  // no token: the server is on loopback (serve refuses otherwise), and only this machine's
  // clients may use it
  app.use("*", sameSiteOnly(options.token === undefined));
  // after the token check (an unknown client learns no route), before anything reads the body
  app.use("*", knownMethodsOnly(() => app.routes));
  app.use("*", limitBody(options.bodyLimit ?? DEFAULT_BODY_LIMIT));
  // camelCase request bodies; the old snake_case names for one release, marked deprecated
  app.use("*", camelCaseBodies());
  // camelCase response bodies (user data as it is); errors name the camelCase fields
  app.use("*", camelCaseResponses());

  // ---- Routers: one line each ----
  app.route("/", openApiRouter(() => app.routes));
  app.route("/v1", eventsRouter(ctx));
  app.route("/v1", blobsRouter(ctx));
  app.route("/v1", sessionsRouter(ctx));
  app.route("/v1", blazeRouter(ctx));
  app.route("/v1", recordRouter(ctx));
  app.route("/v1", playbacksRouter(ctx));
  app.route("/v1", trailsRouter(ctx));
  app.route("/v1", validationsRouter(ctx));
  app.route("/", mcpRouter((req) => app.fetch(req), options.token));
  app.route("/", viewRouter(ctx));
  return app;
}

/**
 * The methods the routes take on a path (`GET, HEAD` for a GET route, as hono answers HEAD with
 * it), middleware (`ALL`) left out.
 *
 * @param routes the app's routes (`app.routes`)
 * @param path a request path
 * @returns the methods, sorted; empty when no route has this path
 * @example
 * ```ts
 * const routes = [{ method: "GET", path: "/v1/streams/:id/events" }, { method: "ALL", path: "/*" }];
 * if (allowedMethods(routes, "/v1/streams/a/events").join() !== "GET,HEAD") throw new Error();
 * ```
 */
export function allowedMethods(
  routes: readonly { method: string; path: string }[],
  path: string,
): string[] {
  const methods = new Set<string>();
  for (const r of routes) {
    if (r.method === "ALL") continue;
    const pattern = r.path.split("/").map((part) =>
      part.startsWith(":")
        ? "[^/]+"
        : part === "*"
        ? ".*"
        : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    ).join("/");
    if (!new RegExp(`^${pattern}/?$`).test(path)) continue;
    methods.add(r.method);
    if (r.method === "GET") methods.add("HEAD");
  }
  return [...methods].sort();
}

/** The methods any route of the API may take (and OPTIONS, which hono answers itself). */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * Answers a method no route takes (`TRACE`, `TRACK`, `CONNECT`, an unknown word) with 405 and
 * an `Allow` header before anything reads the request: the path's methods when it is a known
 * path, else every method the API takes. (A forbidden method once reached the body limit, whose
 * `new Request(…)` throws on it: a 500.)
 */
function knownMethodsOnly(routes: () => readonly { method: string; path: string }[]) {
  return async (c: Context, next: Next) => {
    const method = c.req.method.toUpperCase();
    if (KNOWN_METHODS.has(method)) return await next();
    let allow = allowedMethods(routes(), c.req.path);
    if (allow.length === 0) {
      const all = new Set(routes().map((r) => r.method).filter((m) => m !== "ALL"));
      if (all.has("GET")) all.add("HEAD");
      allow = [...all].sort();
    }
    c.header("Allow", allow.join(", "));
    return c.json({
      error: {
        code: "method_not_allowed",
        message: `${c.req.method.slice(0, 20)} is not allowed on ${c.req.path.slice(0, 200)} ` +
          `(allowed: ${allow.join(", ")})`,
      },
    }, 405);
  };
}

/**
 * hono's `bodyLimit`, kept off the request's `signal`: a body of unknown length (chunked, or a
 * POST with no Content-Length, as `curl -X POST` sends) is counted and then re-wrapped as
 * `new Request(raw, …)`, which reads `raw.signal`, and Deno.serve then warns that the signal
 * "aborts on successful responses (legacy behavior)". Such a body is handed over in a request
 * of its own (same url, method, headers and body, no server signal) and counted as before.
 */
function limitBody(maxSize: number) {
  const limit = bodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError(
        413,
        "payload_too_large",
        `Request body is larger than the server's limit of ${maxSize} bytes (${
          sizeInUnits(maxSize)
        }; serve --body-limit)`,
      );
    },
  });
  return (c: Context, next: Next) => {
    const raw = c.req.raw;
    const sized = raw.headers.has("content-length") && !raw.headers.has("transfer-encoding");
    if (raw.body && !sized) {
      c.req.raw = new Request(raw.url, {
        method: raw.method,
        headers: raw.headers,
        body: raw.body,
      });
    }
    return limit(c, next);
  };
}

/** A byte count as people read it: `16 MiB`, `1.5 KiB`, `10 bytes`. */
function sizeInUnits(bytes: number): string {
  for (const [unit, size] of [["GiB", 2 ** 30], ["MiB", 2 ** 20], ["KiB", 2 ** 10]] as const) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

function requireBearer(token: string) {
  const expected = new TextEncoder().encode(token);
  return async (c: Context, next: Next) => {
    // the viewer's page and its static files hold no data (a browser opening a link cannot send
    // a header): the page then sends the token on every request for the run's data
    if (c.req.method === "GET" && /^\/(view\/[^/]+|view-assets\/[\w.-]+)$/.test(c.req.path)) {
      return await next();
    }
    // the scheme is case-insensitive (RFC 9110 11.1)
    const m = /^bearer +(.*)$/i.exec(c.req.header("authorization") ?? "");
    const got = new TextEncoder().encode(m?.[1] ?? "");
    if (m === null || got.length !== expected.length || !timingSafeEqual(got, expected)) {
      throw new ApiError(401, "unauthorized", "Missing or wrong bearer token");
    }
    await next();
  };
}

/**
 * Whether a host name is this machine's loopback.
 *
 * @param host a host name or address, IPv6 with or without brackets
 * @returns true for 127.0.0.0/8, ::1 and localhost
 */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/**
 * Refuses what a web page in a browser on this machine could send: a request from another
 * origin (its `Origin` header names another host: cross-site request forgery), and, when
 * `loopbackHost`, a `Host` that is not a loopback name (a DNS-rebinding page on its own host
 * name pointed at 127.0.0.1). Clients that are not browsers send no `Origin`.
 */
function sameSiteOnly(loopbackHost: boolean) {
  return async (c: Context, next: Next) => {
    const url = new URL(c.req.url);
    if (loopbackHost && !isLoopback(url.hostname)) {
      throw new ApiError(403, "forbidden_host", `Host ${url.host} is not a loopback name`);
    }
    const origin = c.req.header("origin");
    if (origin !== undefined && URL.parse(origin)?.host !== url.host) {
      throw new ApiError(403, "forbidden_origin", `Origin ${origin} may not use this API`);
    }
    await next();
  };
}
