/**
 * The one rule for the ids of sessions, playbacks and validations in paths and bodies: an id is
 * given bare (`abc`) or with its stream's prefix (`session-abc`, `playback-pb-1`,
 * `validation-val-1`) or as the start of exactly one (several: 400), and an id that names nothing is a 404 `No session abc` (`No playback …`,
 * `No validation …`), the bare id in the message.
 *
 * @module
 */
import { NotFoundError, streamInfo } from "../events/mod.ts";
import type { EventStore } from "../events/mod.ts";
import { invalidRequest } from "./errors.ts";

/** What an id names: its stream is `<kind>-<id>`. */
export type IdKind = "session" | "playback" | "validation";

/**
 * The stream of a kind an id names, found in the store: `<kind>-<given>` when it exists, else
 * `given` itself when it carries the prefix.
 *
 * @param store the event store
 * @param kind session, playback or validation
 * @param given the id as the client wrote it
 * @returns the bare id (the stream is `<kind>-<id>`)
 * @throws {NotFoundError} `No <kind> <id>` when neither stream exists
 */
export async function resolveId(store: EventStore, kind: IdKind, given: string): Promise<string> {
  const bare = bareId(kind, given);
  if (await streamInfo(store, `${kind}-${given}`)) return given;
  if (bare !== given && await streamInfo(store, `${kind}-${bare}`)) return bare;
  // the start of exactly one id, as the command line takes it (`cairn history`)
  const found = await store.streams(`${kind}-${bare}`);
  if (found.length === 1) return found[0]!.streamId.slice(kind.length + 1);
  if (found.length > 1) {
    const message = `${bare} is the start of ${found.length} ${kind}s: give more of the id`;
    throw invalidRequest(message, [{ path: "path.id", message }]);
  }
  throw new NotFoundError(`No ${kind} ${bare}`);
}

/**
 * An id without its stream's prefix (`session-abc` → `abc`); an id that is only the prefix is
 * kept.
 *
 * @param kind session, playback or validation
 * @param given the id as written
 * @returns the bare id
 * @example
 * ```ts
 * if (bareId("session", "session-abc") !== "abc" || bareId("session", "abc") !== "abc") {
 *   throw new Error();
 * }
 * ```
 */
export function bareId(kind: IdKind, given: string): string {
  const prefix = `${kind}-`;
  return given.startsWith(prefix) && given.length > prefix.length
    ? given.slice(prefix.length)
    : given;
}
