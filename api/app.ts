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
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { timingSafeEqual } from "node:crypto";
import type { EventStore } from "../events/event_store.ts";
import { handleError } from "./errors.ts";
import { openApiRouter } from "./openapi.ts";
import { eventsRouter } from "./events.ts";
import { blazeRouter } from "./blaze.ts";
import { recordRouter } from "./record.ts";
import { blobsRouter } from "./blobs.ts";
import { sessionsRouter } from "./sessions.ts";
import { playbacksRouter } from "./playbacks.ts";
import { trailsRouter } from "./trails.ts";
import { validationsRouter } from "./validations.ts";

/** What every router receives: the shared store (and whatever else the app was given). */
export interface ApiContext {
  store: EventStore;
  /** Aborts when the server shuts down: long-lived responses (SSE) end on it. */
  shutdown?: AbortSignal;
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
}

/** Default request body limit: 16 MiB. */
export const DEFAULT_BODY_LIMIT = 16 * 1024 * 1024;

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
  };
  const app = new Hono();
  app.onError(handleError);
  app.notFound((c) =>
    c.json({ error: { code: "not_found", message: `No route ${c.req.method} ${c.req.path}` } }, 404)
  );
  if (options.token !== undefined) app.use("*", requireBearer(options.token));
  app.use("*", bodyLimit({ maxSize: options.bodyLimit ?? DEFAULT_BODY_LIMIT }));

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
  return app;
}

function requireBearer(token: string) {
  const expected = new TextEncoder().encode(`Bearer ${token}`);
  return async (
    c: { req: { header(name: string): string | undefined } },
    next: () => Promise<void>,
  ) => {
    const got = new TextEncoder().encode(c.req.header("authorization") ?? "");
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
      throw new HTTPException(401, { message: "Missing or wrong bearer token" });
    }
    await next();
  };
}
