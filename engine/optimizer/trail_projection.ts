/**
 * The trail projection: a capture session's events → trail YAML, under a selector mode and a
 * heuristics version (docs/architecture.md "Optimizer"). {@linkcode projectTrail} is pure and
 * deterministic; {@linkcode projectSessionTrail} reads the stream and its screens from a store.
 *
 * @module
 */
import { type EventStore, InvalidStreamError, NotFoundError } from "../../events/mod.ts";
import type { NewEvent, StoredEvent } from "../../events/mod.ts";
import { decodeScreen, parsedScreenKind, parseHierarchy } from "../screens/mod.ts";
import { optimize, type OptimizeOptions, type OptimizeResult } from "./optimize.ts";
import type { ScreenTable } from "../screens/mod.ts";
import { stringifyTrail } from "../trail/mod.ts";
import type { Screen } from "../screens/mod.ts";

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
    const screen = parseStored(await getText(hash), e);
    screens.set(hash, screen);
  }
  return screens;
}

/**
 * A screen not read yet: its hierarchy's bytes (read when needed), the bytes of the screen parsed
 * at ingest when the store keeps them, and the event that holds it.
 */
interface Pending {
  bytes(): Uint8Array;
  parsed?(): Uint8Array | undefined;
  event: NewEvent;
}

/**
 * Screens by blob hash, parsed when first asked for, once: a screen no pass asks for is never
 * parsed. A SQLite store's blobs are read then too (`getBlobBytesSync`); another store's are
 * read up front (its reads are async, the optimizer is not) and let go once parsed. Parsed
 * screens go into `cache`, shared with later projections.
 */
class LazyScreens implements ReadonlyMap<string, Screen> {
  readonly #cache: Map<string, Screen>;
  readonly #pending: Map<string, Pending>;
  readonly #decoder = new TextDecoder();

  constructor(
    cache: Map<string, Screen>,
    pending: Map<string, Pending>,
  ) {
    this.#cache = cache;
    this.#pending = pending;
  }

  get(hash: string): Screen | undefined {
    const s = this.#cache.get(hash);
    if (s !== undefined) return s;
    const p = this.#pending.get(hash);
    if (p === undefined) return undefined;
    const stored = p.parsed?.();
    const screen = (stored && decodeScreen(stored)) ??
      parseStored(this.#decoder.decode(p.bytes()), p.event);
    this.#pending.delete(hash);
    this.#cache.set(hash, screen);
    return screen;
  }

  has(hash: string): boolean {
    return this.#cache.has(hash) || this.#pending.has(hash);
  }

  get size(): number {
    return this.#cache.size + this.#pending.size;
  }

  #all(): Map<string, Screen> {
    for (const h of [...this.#pending.keys()]) this.get(h);
    return this.#cache;
  }

  forEach(fn: (value: Screen, key: string, map: ReadonlyMap<string, Screen>) => void): void {
    this.#all().forEach((v, k) => fn(v, k, this));
  }

  entries(): MapIterator<[string, Screen]> {
    return this.#all().entries();
  }

  keys(): MapIterator<string> {
    return this.#all().keys();
  }

  values(): MapIterator<Screen> {
    return this.#all().values();
  }

  [Symbol.iterator](): MapIterator<[string, Screen]> {
    return this.entries();
  }
}

/** Parses a stored hierarchy, naming the event that holds it when it does not parse. */
function parseStored(text: string, e: NewEvent): Screen {
  if (e.type !== "ScreenCaptured") throw new TypeError(`${e.type} holds no screen`);
  try {
    return parseHierarchy(text, { format: e.data.format });
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    // what is stored does not make a session a projection can read: not the request's fault
    const stored = e as Partial<StoredEvent>;
    const at = stored.position === undefined
      ? ""
      : ` at position ${stored.position} (${stored.streamId})`;
    throw new InvalidStreamError(
      `The ScreenCaptured${at}: data.hierarchy (blob ${e.data.hierarchy.hash}) does not parse as ${e.data.format}: ${err.message}`,
    );
  }
}

/** Options of {@linkcode projectSessionTrail}. */
export type SessionProjectionOptions = OptimizeOptions & {
  /** Cache of parsed screens shared across projections. */
  screens?: Map<string, Screen>;
  tables?: Map<string, ScreenTable>;
};

/**
 * Reads a session from a store and projects its trail. Screens are read lazily, once per
 * blob hash, as the optimizer asks for them ({@linkcode LazyScreens}): decoded from the parsed
 * screen the store kept at ingest (`getDerived`, `decodeScreen`) when it has one, else parsed from
 * the hierarchy; those in `options.screens` (a cache shared across projections, or the screens a
 * file's import just parsed) are not read again.
 *
 * @param store the event store
 * @param sessionId the session id (the stream is `session-<id>`)
 * @param options mode, heuristics version, caches
 * @returns the projection
 * @throws {NotFoundError} when the session or a blob does not exist
 * @throws {InvalidStreamError} when a stored hierarchy does not parse
 */
export async function projectSessionTrail(
  store: EventStore,
  sessionId: string,
  options: SessionProjectionOptions = {},
): Promise<Projection> {
  const events: StoredEvent[] = [];
  for await (const e of store.readStream(`session-${sessionId}`)) events.push(e);
  if (events.length === 0) throw new NotFoundError(`No session ${sessionId}`);
  const cache = options.screens ?? new Map<string, Screen>();
  const pending = new Map<string, Pending>();
  const sync = "getBlobBytesSync" in store
    ? store as EventStore & {
      getBlobBytesSync(hash: string): Uint8Array;
      getDerivedSync?(hash: string, kind: string): Uint8Array | undefined;
    }
    : undefined;
  for (const e of events) {
    if (e.type !== "ScreenCaptured") continue;
    const hash = e.data.hierarchy.hash;
    if (cache.has(hash) || pending.has(hash)) continue;
    if (sync) {
      if (!(await store.hasBlob(hash))) throw new NotFoundError(`No blob with hash ${hash}`);
      pending.set(hash, {
        bytes: () => sync.getBlobBytesSync(hash),
        ...(sync.getDerivedSync
          ? { parsed: () => sync.getDerivedSync!(hash, parsedScreenKind(e.data.format)) }
          : {}),
        event: e,
      });
    } else {
      // a store read asynchronously: its parsed screen when it keeps one, else the hierarchy
      const parsed = await store.getDerived?.(hash, parsedScreenKind(e.data.format));
      const screen = parsed && decodeScreen(parsed);
      if (screen) cache.set(hash, screen);
      else {
        const bytes = (await store.getBlob(hash)).bytes;
        pending.set(hash, { bytes: () => bytes, event: e });
      }
    }
  }
  const { screens: _s, ...rest } = options;
  return projectTrail(events, { ...rest, screens: new LazyScreens(cache, pending) });
}
