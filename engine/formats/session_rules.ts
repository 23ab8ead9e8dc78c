/**
 * The rules a session stream (`session-<id>`) keeps, whoever writes it: an events file that
 * `cairn ingest` reads and a batch appended over HTTP are held to the same ones, so what the log
 * takes can be exported and read back in. The log itself takes any events of known types; these
 * are the session's rules on top.
 *
 * @module
 */
import type { EventStore } from "../../events/mod.ts";
import type { NewEvent } from "../../events/mod.ts";
import { blobRefsIn, SESSION_EVENT_TYPES } from "./events_jsonl.ts";
import { checkHierarchy, checkScreenshot, hierarchyText } from "./check_screen.ts";
import { FormatError } from "../input/mod.ts";

/** What a session stream holds before a batch, as far as the rules look at it. */
export interface SessionSoFar {
  /** How many events it holds (0: the batch starts the session). */
  events: number;
  /** Whether its last event is `SessionEnded`. */
  ended: boolean;
  /** Whether an earlier `ActionPerformed` started an action id (asked for an `ActionCompleted`). */
  performed(actionId: string): boolean;
}

/** The first rule a batch breaks: the event's index, the field at fault and what is wrong. */
export interface SessionRuleBreak {
  index: number;
  /** `type`, or a field path under the event (`data.sessionId`). */
  field: string;
  message: string;
}

const NEW_SESSION: SessionSoFar = { events: 0, ended: false, performed: () => false };

/**
 * Checks a batch of a session's events in order: only session event types; the session's
 * first event is `SessionStarted` and there is no second one; nothing after `SessionEnded`; an
 * `ActionCompleted` follows its `ActionPerformed`; and, given the stream's session id, the
 * `SessionStarted` names it.
 *
 * @param events the batch, in order
 * @param options what the stream holds already (default: nothing) and its session id
 * @returns the first rule broken, or undefined when the batch keeps them all
 * @example
 * ```ts
 * const step = { type: "StepStarted" as const, data: { index: 0, text: "Open" } };
 * if (checkSessionEvents([step])?.message !== "the first event of a session must be SessionStarted") {
 *   throw new Error();
 * }
 * ```
 */
export function checkSessionEvents(
  events: readonly NewEvent[],
  options: { before?: SessionSoFar; sessionId?: string } = {},
): SessionRuleBreak | undefined {
  const before = options.before ?? NEW_SESSION;
  const performed = new Set<string>();
  let ended = before.ended;
  for (let index = 0; index < events.length; index++) {
    const e = events[index]!;
    const at = (field: string, message: string) => ({ index, field, message });
    if (!SESSION_EVENT_TYPES.has(e.type)) return at("type", `${e.type} is not a session event`);
    const first = before.events === 0 && index === 0;
    if (first && e.type !== "SessionStarted") {
      return at("type", "the first event of a session must be SessionStarted");
    }
    if (!first && e.type === "SessionStarted") {
      return at("type", "a second SessionStarted (a session has one)");
    }
    if (ended) return at("type", `${e.type} after SessionEnded`);
    switch (e.type) {
      case "SessionStarted": {
        const id = options.sessionId;
        if (id !== undefined && e.data.sessionId !== id) {
          return at(
            "data.sessionId",
            `${JSON.stringify(e.data.sessionId)} is not this stream's session (session-${id}: ${
              JSON.stringify(id)
            })`,
          );
        }
        break;
      }
      case "ActionPerformed":
        performed.add(e.data.actionId);
        break;
      case "ActionCompleted":
        if (!performed.has(e.data.actionId) && !before.performed(e.data.actionId)) {
          return at(
            "data.actionId",
            `ActionCompleted for action ${
              JSON.stringify(e.data.actionId)
            }, which no earlier ActionPerformed started`,
          );
        }
        break;
      case "SessionEnded":
        ended = true;
        break;
    }
  }
  return undefined;
}

/**
 * The first referenced blob the store does not hold (an events file's blobs that the file does
 * not carry; the blobs of a batch appended over HTTP).
 *
 * @param store the event store
 * @param refs each referenced hash with where it is referenced (a line, a field path)
 * @returns the first missing hash and where, or undefined when the store holds them all
 */
export async function findUnstoredBlob<W>(
  store: EventStore,
  refs: Iterable<[hash: string, where: W]>,
): Promise<[hash: string, where: W] | undefined> {
  for (const [hash, where] of refs) {
    if (!(await store.hasBlob(hash))) return [hash, where];
  }
  return undefined;
}

/**
 * Checks the blobs a batch references against what the store holds: each is stored (else
 * `blob <hash> is not stored (POST /v1/blobs first)`), with the media type and size its reference
 * declares, and a `ScreenCaptured`'s screen is one its readers can read, as `cairn ingest` checks
 * the screens an events file carries (`check_screen.ts`): the hierarchy parses as its format and
 * the screenshot is an image of its type. A screen that is not would be stored and then fail every
 * projection of the session (its trail, a validation).
 *
 * @param store the event store
 * @param events the batch, in order
 * @returns the first problem, at `data.<field>` of the event, or undefined when there is none
 */
export async function checkStoredBlobs(
  store: EventStore,
  events: readonly NewEvent[],
): Promise<SessionRuleBreak | undefined> {
  const checked = new Set<string>();
  for (let index = 0; index < events.length; index++) {
    const e = events[index]!;
    for (const [key, value] of Object.entries(e.data)) {
      const field = `data.${key}`;
      for (const ref of blobRefsIn(value)) {
        if (!(await store.hasBlob(ref.hash))) {
          return { index, field, message: `blob ${ref.hash} is not stored (POST /v1/blobs first)` };
        }
        const stored = (await store.getBlob(ref.hash)).ref;
        if (stored.mediaType !== ref.mediaType || stored.size !== ref.size) {
          const what = stored.mediaType !== ref.mediaType
            ? `media type ${JSON.stringify(ref.mediaType)}, but the blob is stored as ${
              JSON.stringify(stored.mediaType)
            }`
            : `size ${ref.size}, but the blob is ${stored.size} bytes`;
          return { index, field, message: `declares ${what} (blob ${ref.hash})` };
        }
      }
    }
    if (e.type !== "ScreenCaptured") continue;
    const { hierarchy, screenshot, format } = e.data;
    try {
      const key = `${format} ${hierarchy.hash}`;
      if (!checked.has(key)) {
        const bytes = (await store.getBlob(hierarchy.hash)).bytes;
        checkHierarchy(hierarchyText(bytes, "data.hierarchy"), format, "data.hierarchy");
        checked.add(key);
      }
      if (screenshot) {
        const bytes = (await store.getBlob(screenshot.hash)).bytes;
        checkScreenshot({ bytes, mediaType: screenshot.mediaType }, "data.screenshot");
      }
    } catch (err) {
      if (!(err instanceof FormatError)) throw err;
      const field = err.where ?? "data.hierarchy";
      const message = err.message.startsWith(`${field}: `)
        ? err.message.slice(field.length + 2)
        : err.message;
      return { index, field, message };
    }
  }
  return undefined;
}
