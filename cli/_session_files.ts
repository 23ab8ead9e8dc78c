/**
 * Writes a recorded session to a folder: the `recording_v1` file under its standard name
 * (`vw-ax-agent-…` / `vw-ax-human-…`) and the Cairn capture file `<session>.capture.json`.
 * `recording_v1` holds browser sessions only (as `cairn export --format recording_v1`): an
 * Android or iOS session gets the capture file alone.
 *
 * @module
 */
import { dirname, join } from "node:path";
import type { EventStore } from "../events/mod.ts";
import { recordingFileName } from "../engine/formats/mod.ts";
import { readSession, sessionToCapture, sessionToRecording } from "../runners/record/mod.ts";

/** What {@linkcode writeSessionFiles} wrote. */
export interface SessionFiles {
  /** The paths written: the recording first (when written), then the capture. */
  files: string[];
  /** Why no recording was written (a session of another platform than web). */
  skipped?: string;
}

/**
 * Exports a session as `recording_v1` (web sessions) and as a capture file.
 *
 * @param store the event store
 * @param sessionId the session
 * @param dir the folder to write to (created when missing)
 * @param options `recording` overrides the recording's file path; `capture: false` skips the capture file
 * @returns the paths written and, for a device session, why it has no recording
 */
export async function writeSessionFiles(
  store: EventStore,
  sessionId: string,
  dir: string,
  options: { recording?: string; capture?: boolean } = {},
): Promise<SessionFiles> {
  const data = await readSession(store, sessionId);
  const files: string[] = [];
  const started = data.events.find((e) => e.type === "SessionStarted");
  const platform = started?.type === "SessionStarted" ? started.data.platform : undefined;
  let skipped: string | undefined;
  if (platform !== undefined && platform !== "web") {
    // the `recording_v1` recorder records browser tabs: a device session would come back as web
    skipped = `No recording_v1 written: recording_v1 holds web sessions and ${sessionId} is ` +
      `${platform} (the capture file holds it)`;
  } else {
    const recording = sessionToRecording(data);
    const recordingPath = options.recording ?? join(dir, recordingFileName(recording));
    await Deno.mkdir(dirname(recordingPath), { recursive: true });
    await writeAtomic(recordingPath, JSON.stringify(recording, null, 2) + "\n");
    files.push(recordingPath);
  }
  if (options.capture === false) return { files, ...(skipped ? { skipped } : {}) };
  const capturePath = join(dir, `${sessionId}.capture.json`);
  await Deno.mkdir(dir, { recursive: true });
  await writeAtomic(capturePath, JSON.stringify(sessionToCapture(data), null, 2) + "\n");
  files.push(capturePath);
  return { files, ...(skipped ? { skipped } : {}) };
}

async function writeAtomic(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(path + ".tmp", text);
  await Deno.rename(path + ".tmp", path);
}
