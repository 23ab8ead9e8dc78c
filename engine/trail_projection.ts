/**
 * The trail projection: a capture session's events → trail YAML, under a selector mode and a
 * heuristics version (DESIGN.md "Optimizer"). {@linkcode projectTrail} is pure and
 * deterministic; {@linkcode projectSessionTrail} reads the stream and its screens from a store.
 *
 * @module
 */
import { type EventStore, InvalidStreamError } from "../events/event_store.ts";
import type { NewEvent, StoredEvent } from "../events/schemas.ts";
import { parseHierarchy } from "./hierarchy.ts";
import { optimize, type OptimizeOptions, type OptimizeResult } from "./optimizer/optimize.ts";
import type { ScreenTable } from "./screen_table.ts";
import { stringifyTrail } from "./trail.ts";
import type { Screen } from "./ui_node.ts";

/** Options of {@linkcode projectTrail}. */
export interface ProjectionOptions extends OptimizeOptions {
  /** Parsed screens by hierarchy blob hash. */
  screens: ReadonlyMap<string, Screen>;
}

/** A projected trail: its YAML and the optimizer's account of it. */
export interface Projection extends OptimizeResult {
  yaml: string;
}

/**
 * Projects a capture into trail YAML. Pure: the same events, screens and options give the
 * same bytes.
 *
 * @param events the session stream's events, in order
 * @param options screens, mode, heuristics version
 * @returns the YAML with the trail, explanation and warnings
 * @throws {RangeError} on an unknown heuristics version
 */
export function projectTrail(events: readonly NewEvent[], options: ProjectionOptions): Projection {
  const { screens, ...rest } = options;
  const result = optimize(events, screens, rest);
  return { ...result, yaml: stringifyTrail(result.trail) };
}

/**
 * Parses the screens a session's events reference, reading each blob once.
 *
 * @param events the events
 * @param getText reads a blob's text by hash
 * @returns screens by blob hash
 * @throws {InvalidStreamError} when a stored hierarchy does not parse (naming the event's position)
 */
export async function loadScreens(
  events: readonly NewEvent[],
  getText: (hash: string) => Promise<string>,
): Promise<Map<string, Screen>> {
  const screens = new Map<string, Screen>();
  for (const e of events) {
    if (e.type !== "ScreenCaptured") continue;
    const hash = e.data.hierarchy.hash;
    if (screens.has(hash)) continue;
    let screen: Screen;
    try {
      screen = parseHierarchy(await getText(hash), { format: e.data.format });
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
      // what is stored does not make a session a projection can read: not the request's fault
      const stored = e as Partial<StoredEvent>;
      const at = stored.position === undefined
        ? ""
        : ` at position ${stored.position} (${stored.streamId})`;
      throw new InvalidStreamError(
        `The ScreenCaptured${at}: data.hierarchy (blob ${hash}) does not parse as ${e.data.format}: ${err.message}`,
      );
    }
    screens.set(hash, screen);
  }
  return screens;
}

/** Options of {@linkcode projectSessionTrail}. */
export type SessionProjectionOptions = OptimizeOptions & {
  /** Cache of parsed screens shared across projections. */
  screens?: Map<string, Screen>;
  tables?: Map<string, ScreenTable>;
};

/**
 * Reads a session from a store and projects its trail.
 *
 * @param store the event store
 * @param sessionId the session id (the stream is `session-<id>`)
 * @param options mode, heuristics version, caches
 * @returns the projection
 * @throws {NotFoundError} when the session or a blob does not exist
 */
export async function projectSessionTrail(
  store: EventStore,
  sessionId: string,
  options: SessionProjectionOptions = {},
): Promise<Projection> {
  const events: StoredEvent[] = [];
  for await (const e of store.readStream(`session-${sessionId}`)) events.push(e);
  if (events.length === 0) {
    const { NotFoundError } = await import("../events/event_store.ts");
    throw new NotFoundError(`No session ${sessionId}`);
  }
  const dec = new TextDecoder();
  const cache = options.screens ?? new Map<string, Screen>();
  const loaded = await loadScreens(
    events.filter((e) => e.type !== "ScreenCaptured" || !cache.has(e.data.hierarchy.hash)),
    async (hash) => dec.decode((await store.getBlob(hash)).bytes),
  );
  for (const [k, v] of loaded) cache.set(k, v);
  const { screens: _s, ...rest } = options;
  return projectTrail(events, { ...rest, screens: cache });
}
