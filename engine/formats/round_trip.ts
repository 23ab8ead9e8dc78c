/**
 * What "import∘export round-trips to equal events" means, as one function: the comparable
 * form of a session's events.
 *
 * @module
 */
import type { NewEvent } from "../../events/mod.ts";

/** A session event reduced to what a round trip must preserve. */
export interface ComparableEvent {
  type: string;
  data: unknown;
}

/**
 * Reduces a session's events to what must survive an export and a re-import: the type and
 * the data of every event, in order. Left out: the envelope (`position`, `streamId`,
 * `streamVersion`, `schemaVersion`, all of `meta` incl. `recordedAt`), the generated
 * `SessionStarted.sessionId`, `SessionStarted.source` (which file and format it was imported
 * from), and action ids, renamed `#1`, `#2`, … in order of first appearance.
 *
 * @param events the session's events (new or stored)
 * @returns the comparable form
 * @example
 * ```ts
 * const a = comparableEvents([{ type: "ActionCompleted", data: { actionId: "x9", ok: true, durationMs: 1 } }]);
 * if ((a[0]!.data as { actionId: string }).actionId !== "#1") throw new Error();
 * ```
 */
export function comparableEvents(
  events: readonly Pick<NewEvent, "type" | "data">[],
): ComparableEvent[] {
  const ids = new Map<string, string>();
  const idOf = (id: string) => {
    let v = ids.get(id);
    if (v === undefined) ids.set(id, v = `#${ids.size + 1}`);
    return v;
  };
  return events.map((e) => {
    const data = structuredClone(e.data) as Record<string, unknown>;
    if (e.type === "SessionStarted") {
      delete data.sessionId;
      delete data.source;
    }
    if (typeof data.actionId === "string") data.actionId = idOf(data.actionId);
    return { type: e.type, data };
  });
}
