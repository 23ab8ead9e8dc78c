/**
 * The trail projection: a capture session's events → trail YAML, under a selector mode and a
 * heuristics version (docs/architecture.md "Optimizer"). {@linkcode projectTrail} is pure and
 * deterministic; {@linkcode projectSessionTrail} reads the stream and its screens from a store.
 *
 * @module
 */
import { type EventStore, InvalidStreamError, NotFoundError } from "../../events/mod.ts";
import type { NewEvent, StoredEvent } from "../../events/mod.ts";
import {
  decodeScreen,
  decodeScreenSize,
  encodeScreen,
  parsedScreenKind,
  parseHierarchy,
  RecentMap,
} from "../screens/mod.ts";
import {
  optimize,
  type OptimizeOptions,
  type OptimizeResult,
  SCREENS_HELD,
  type ScreenSource,
} from "./optimize.ts";
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
 * A screen as it is read: its hierarchy's bytes (read when needed), the bytes of the screen parsed
 * at ingest when the store keeps them, and the event that holds it.
 */
interface Source {
  bytes(): Uint8Array;
  parsed?(): Uint8Array | undefined;
  event: NewEvent;
}

/**
 * Screens by blob hash, read when asked for: a screen no pass asks for is never read. Decoded
 * screens go into `cache`: a {@linkcode RecentMap} that keeps the last ones used (a screen dropped
 * from it is read again when asked for, from the bytes the store kept), or a plain map shared with
 * later projections. A SQLite store's bytes are read when asked for (`getBlobBytesSync`,
 * `getDerivedSync`); another store's are read up front (its reads are async, the optimizer is not).
 */
class LazyScreens implements ScreenSource {
  readonly #cache: Map<string, Screen>;
  readonly #sources: Map<string, Source>;
  readonly #decoder = new TextDecoder();

  constructor(cache: Map<string, Screen>, sources: Map<string, Source>) {
    this.#cache = cache;
    this.#sources = sources;
  }

  get(hash: string): Screen | undefined {
    const s = this.#cache.get(hash);
    if (s !== undefined) return s;
    const p = this.#sources.get(hash);
    if (p === undefined) return undefined;
    const stored = p.parsed?.();
    let screen = stored && decodeScreen(stored);
    if (!screen) {
      screen = parseStored(this.#decoder.decode(p.bytes()), p.event);
      // a screen the store keeps no parsed bytes of (stored before they were kept), in a
      // projection that may drop it: its bytes are kept here, so it is parsed once
      const held = this.#cache instanceof RecentMap ? this.#cache.limit : Infinity;
      const bytes = this.#sources.size > held ? encodeScreen(screen) : undefined;
      if (bytes) this.#sources.set(hash, { ...p, parsed: () => bytes });
    }
    this.#cache.set(hash, screen);
    return screen;
  }

  sizeOf(hash: string): { width: number; height: number } | undefined {
    const s = this.#cache.get(hash);
    if (s !== undefined) return s;
    const stored = this.#sources.get(hash)?.parsed?.();
    return (stored && decodeScreenSize(stored)) || this.get(hash);
  }

  has(hash: string): boolean {
    return this.#cache.has(hash) || this.#sources.has(hash);
  }

  get size(): number {
    let n = this.#sources.size;
    for (const h of this.#cache.keys()) if (!this.#sources.has(h)) n++;
    return n;
  }

  /** Every screen, read one at a time as the iteration reaches it. */
  *#all(): Generator<[string, Screen]> {
    const seen = new Set<string>();
    for (const h of [...this.#cache.keys(), ...this.#sources.keys()]) {
      if (seen.has(h)) continue;
      seen.add(h);
      yield [h, this.get(h)!];
    }
  }

  forEach(fn: (value: Screen, key: string, map: ReadonlyMap<string, Screen>) => void): void {
    for (const [k, v] of this.#all()) fn(v, k, this);
  }

  entries(): MapIterator<[string, Screen]> {
    return this.#all() as MapIterator<[string, Screen]>;
  }

  keys(): MapIterator<string> {
    return this.#all().map(([k]) => k) as MapIterator<string>;
  }

  values(): MapIterator<Screen> {
    return this.#all().map(([, v]) => v) as MapIterator<Screen>;
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
  const cache = options.screens ?? new RecentMap<string, Screen>(SCREENS_HELD);
  const sources = new Map<string, Source>();
  const sync = "getBlobBytesSync" in store
    ? store as EventStore & {
      getBlobBytesSync(hash: string): Uint8Array;
      getDerivedSync?(hash: string, kind: string): Uint8Array | undefined;
    }
    : undefined;
  for (const e of events) {
    if (e.type !== "ScreenCaptured") continue;
    const hash = e.data.hierarchy.hash;
    // a screen in a shared cache gets its source too: a bounded cache may drop it meanwhile
    if (sources.has(hash)) continue;
    if (sync) {
      if (!(await store.hasBlob(hash))) throw new NotFoundError(`No blob with hash ${hash}`);
      sources.set(hash, {
        bytes: () => sync.getBlobBytesSync(hash),
        ...(sync.getDerivedSync
          ? { parsed: () => sync.getDerivedSync!(hash, parsedScreenKind(e.data.format)) }
          : {}),
        event: e,
      });
    } else {
      // a store read asynchronously: its parsed screen's bytes when it keeps them (a quarter of
      // the hierarchy's), else the hierarchy's
      const parsed = await store.getDerived?.(hash, parsedScreenKind(e.data.format));
      const screen = parsed && decodeScreen(parsed);
      if (screen) {
        cache.set(hash, screen);
        sources.set(hash, { bytes: () => parsed, parsed: () => parsed, event: e });
      } else {
        const bytes = (await store.getBlob(hash)).bytes;
        sources.set(hash, { bytes: () => bytes, event: e });
      }
    }
  }
  const { screens: _s, ...rest } = options;
  return projectTrail(events, { ...rest, screens: new LazyScreens(cache, sources) });
}
