/**
 * Reads one recorded session (agent blaze or human recording) out of the event store with the
 * blobs its events reference, and writes it through the exporters: `recording_v1` and
 * a Cairn capture file (`cairn.capture/v1`).
 *
 * @module
 */
import type { EventStore } from "../../events/mod.ts";
import { NotFoundError } from "../../events/mod.ts";
import type { StoredEvent } from "../../events/mod.ts";
import { type CaptureV1, eventsToCapture } from "../../engine/formats/mod.ts";
import { eventsToRecording, type RecordingV1 } from "../../engine/formats/mod.ts";

/** A session's events in order and the bytes of every blob they reference. */
export interface SessionData {
  sessionId: string;
  events: StoredEvent[];
  blobs: Map<string, Uint8Array>;
}

/**
 * Reads a session's events and blobs.
 *
 * @param store the event store
 * @param sessionId the session id (stream `session-<id>`)
 * @returns the events and blob bytes
 * @throws {NotFoundError} when the session has no events
 */
export async function readSession(store: EventStore, sessionId: string): Promise<SessionData> {
  const events: StoredEvent[] = [];
  for await (const e of store.readStream(`session-${sessionId}`)) events.push(e);
  if (events.length === 0) throw new NotFoundError(`No session ${sessionId}`);
  const blobs = new Map<string, Uint8Array>();
  for (const e of events) {
    if (e.type !== "ScreenCaptured") continue;
    for (const ref of [e.data.hierarchy, e.data.screenshot]) {
      if (ref && !blobs.has(ref.hash)) blobs.set(ref.hash, (await store.getBlob(ref.hash)).bytes);
    }
  }
  return { sessionId, events, blobs };
}

/**
 * The session as a Cairn capture file.
 *
 * @param data what {@linkcode readSession} returned
 * @returns the capture
 */
export function sessionToCapture(data: SessionData): CaptureV1 {
  return eventsToCapture(data.events, { blobs: data.blobs });
}

/**
 * The session as a `recording_v1` object (mode from `SessionStarted`: agent or human).
 *
 * @param data what {@linkcode readSession} returned
 * @returns the recording
 */
export function sessionToRecording(data: SessionData): RecordingV1 {
  return eventsToRecording(data.events, { blobs: data.blobs });
}
