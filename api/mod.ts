/**
 * The HTTP API: a Hono app with one router per resource (sessions, blaze, playbacks, validations,
 * trails, blobs, events, the viewer), validation at the edge, errors as JSON, and the OpenAPI
 * document built from the same routes.
 *
 * @example
 * ```ts
 * import { SqliteEventStore } from "../events/mod.ts";
 * import { createApp } from "./mod.ts";
 * const store = SqliteEventStore.open(":memory:");
 * const res = await createApp({ store }).request("/openapi.json");
 * if (res.status !== 200) throw new Error(String(res.status));
 * store.close();
 * ```
 *
 * @module
 */
export * from "./per_store.ts";
export * from "./app.ts";
export * from "./blaze.ts";
export * from "./playbacks.ts";
export * from "./record.ts";
export * from "./validations.ts";
