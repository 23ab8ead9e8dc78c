/**
 * Human recordings over HTTP: list the recordings running in this process and stop one
 * (`POST /v1/record/:id/stop`). `cairn record --port N` serves this API while it records.
 *
 * @module
 */
import { Hono } from "hono";
import type { EventStore } from "../events/mod.ts";
import type { ApiContext } from "./app.ts";
import { ApiError, parseInput, pathId } from "./errors.ts";
import { describeRoute } from "./openapi.ts";

/** The running human recordings of one store, by session id, each with how to stop it. */
export class RecordRegistry {
  #stops = new Map<string, () => void>();

  /** Registers a running recording and the function that stops it. */
  register(sessionId: string, stop: () => void): void {
    this.#stops.set(sessionId, stop);
  }

  /** Forgets a recording (it stopped). */
  unregister(sessionId: string): void {
    this.#stops.delete(sessionId);
  }

  /** Ids of the running recordings. */
  ids(): string[] {
    return [...this.#stops.keys()];
  }

  /**
   * Asks a recording to stop.
   *
   * @param sessionId the recording
   * @returns false when no such recording runs
   */
  stop(sessionId: string): boolean {
    const stop = this.#stops.get(sessionId);
    if (!stop) return false;
    stop();
    return true;
  }
}

const registries = new WeakMap<EventStore, RecordRegistry>();

/**
 * The record registry of a store (created on first use).
 *
 * @param store the event store the recordings write to
 * @returns the registry
 */
export function recordRegistry(store: EventStore): RecordRegistry {
  let r = registries.get(store);
  if (!r) registries.set(store, r = new RecordRegistry());
  return r;
}

const SessionId = pathId(100, false);

describeRoute({
  method: "get",
  path: "/v1/record",
  summary: "The human recordings running in this process",
  tags: ["record"],
});
describeRoute({
  method: "post",
  path: "/v1/record/{id}/stop",
  summary: "Stop a human recording: it writes its recording_v1 file and ends",
  tags: ["record"],
  responses: {
    "202": { description: "Stopping" },
    "404": { description: "No running recording with this id" },
  },
});

/**
 * The record router (mounted under `/v1`).
 *
 * @param ctx the shared API context
 * @returns a hono router
 */
export function recordRouter(ctx: ApiContext): Hono {
  const registry = recordRegistry(ctx.store);
  const app = new Hono();
  app.get("/record", (c) => c.json({ recordings: registry.ids() }));
  app.post("/record/:id/stop", (c) => {
    const id = parseInput(SessionId, c.req.param("id"), "path.id");
    if (!registry.stop(id)) throw new ApiError(404, "not_found", `No running recording ${id}`);
    return c.json({ sessionId: id, stopping: true }, 202);
  });
  return app;
}
