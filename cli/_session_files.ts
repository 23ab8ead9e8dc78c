/**
 * Writes a recorded session to a folder: the `recording_v1` file under the name 004 gives it
 * (`vw-ax-agent-…` / `vw-ax-human-…`) and the Cairn capture file `<session>.capture.json`.
 *
 * @module
 */
import { dirname, join } from "node:path";
import type { EventStore } from "../events/event_store.ts";
import { recordingFileName } from "../engine/formats/recording_v1.ts";
import { readSession, sessionToCapture, sessionToRecording } from "../drivers/session_export.ts";

/**
 * Exports a session as `recording_v1` and as a capture file.
 *
 * @param store the event store
 * @param sessionId the session
 * @param dir the folder to write to (created when missing)
 * @param options `recording` overrides the recording's file path; `capture: false` skips the capture file
 * @returns the paths written: the recording first, then the capture
 */
export async function writeSessionFiles(
  store: EventStore,
  sessionId: string,
  dir: string,
  options: { recording?: string; capture?: boolean } = {},
): Promise<string[]> {
  const data = await readSession(store, sessionId);
  const recording = sessionToRecording(data);
  const recordingPath = options.recording ?? join(dir, recordingFileName(recording));
  await Deno.mkdir(dirname(recordingPath), { recursive: true });
  await writeAtomic(recordingPath, JSON.stringify(recording, null, 2) + "\n");
  if (options.capture === false) return [recordingPath];
  const capturePath = join(dir, `${sessionId}.capture.json`);
  await Deno.mkdir(dir, { recursive: true });
  await writeAtomic(capturePath, JSON.stringify(sessionToCapture(data), null, 2) + "\n");
  return [recordingPath, capturePath];
}

async function writeAtomic(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(path + ".tmp", text);
  await Deno.rename(path + ".tmp", path);
}
