/**
 * A `recording_v1` file as a playback plan, through the same session events the import
 * produces (`recordingToEvents` of `engine/formats/recording_v1.ts`).
 *
 * @module
 */
import { recordingToEvents } from "../formats/mod.ts";
import { FormatError } from "../input/mod.ts";
import type { PlaybackPlan } from "./actions.ts";
import { eventsToPlan, type SessionEvent } from "./from_events.ts";

/** The recording schema this engine plays (a loader rejects anything else). */
export const PLAYABLE_SCHEMA = "recording_v1";

/**
 * Converts a parsed `recording_v1` into a plan, rejecting an incompatible `schema_version`.
 *
 * @param value the parsed JSON of the file
 * @param options the file name (for errors and the plan's source)
 * @returns the plan
 * @throws {FormatError} (a `SyntaxError`) on another schema version or a malformed recording
 */
export function recordingV1ToPlan(value: unknown, options: { file?: string } = {}): PlaybackPlan {
  const where = options.file ? `${options.file}: ` : "";
  const version = value && typeof value === "object"
    ? (value as Record<string, unknown>).schema_version
    : undefined;
  if (version !== PLAYABLE_SCHEMA) {
    throw new FormatError(
      `${where}schema_version: cannot play a recording with schema_version ${
        JSON.stringify(version ?? null)
      }; this Cairn plays ${PLAYABLE_SCHEMA} (re-export it with a matching recorder)`,
      "schema_version",
    );
  }
  let imported;
  try {
    imported = recordingToEvents(value, {
      sessionId: "replay",
      ...(options.file ? { file: options.file } : {}),
    });
  } catch (err) {
    if (err instanceof FormatError && where) throw new FormatError(`${where}${err.message}`, "");
    throw err;
  }
  const id = String((value as Record<string, unknown>).id ?? "");
  return eventsToPlan(imported.events as SessionEvent[], {
    kind: "recording",
    ...(id ? { recordingId: id } : {}),
    ...(options.file ? { file: options.file } : {}),
  });
}
