/**
 * Helpers of the optimizer tests: load a capture file or a golden `events.jsonl` into memory
 * (events and parsed screens), with no store.
 *
 * @module
 */
import { prepareFile } from "../cli/ingest.ts";
import type { NewEvent } from "../events/schemas.ts";
import { blobRefOf, type PendingBlob } from "../engine/formats/blob_ref.ts";
import { parseEventsJsonl } from "../engine/formats/events_jsonl.ts";
import { loadScreens } from "../engine/trail_projection.ts";
import type { Screen } from "../engine/ui_node.ts";

/** A capture in memory. */
export interface LoadedCapture {
  events: NewEvent[];
  screens: Map<string, Screen>;
  blobs: PendingBlob[];
}

async function withScreens(events: NewEvent[], blobs: PendingBlob[]): Promise<LoadedCapture> {
  const dec = new TextDecoder();
  const byHash = new Map(blobs.map((b) => [blobRefOf(b).hash, b]));
  const screens = await loadScreens(events, (h) => {
    const b = byHash.get(h);
    if (!b) return Promise.reject(new Error(`blob ${h} missing`));
    return Promise.resolve(dec.decode(b.bytes));
  });
  return { events, screens, blobs };
}

/**
 * Loads a capture file (any format `cairn ingest` reads) into memory.
 *
 * @param path the file
 * @param sessionId the session id to give it
 * @returns events, screens and blobs
 */
export async function loadCaptureFile(path: string, sessionId: string): Promise<LoadedCapture> {
  const p = await prepareFile(path, { sessionId });
  return await withScreens(p.sessions[0]!.events, p.blobs);
}

/**
 * Loads a golden `events.jsonl` (Cairn's event export with embedded blobs).
 *
 * @param path the file
 * @returns events, screens and blobs
 */
export async function loadEventsFile(path: string): Promise<LoadedCapture> {
  const f = parseEventsJsonl(await Deno.readTextFile(path));
  return await withScreens(f.events, f.blobs);
}
