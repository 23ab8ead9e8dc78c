/**
 * `cairn export --format playwright|maestro|recorder`: a trail file (or a stored session,
 * projected into an adaptive trail as `cairn optimize` does) as another runner's test.
 *
 * @module
 */
import type { ParsedArgs } from "./args.ts";
import { matchStream, openStore } from "./context.ts";
import { InputError } from "./errors.ts";
import { NotFoundError } from "../events/mod.ts";
import { parseTrail, type Trail } from "../engine/trail/mod.ts";
import { projectSessionTrail } from "../engine/optimizer/mod.ts";
import type { ExportResult } from "../engine/export/mod.ts";
import { trailToPlaywright } from "../engine/export/mod.ts";
import { trailToRecorder } from "../engine/export/mod.ts";
import { maestroToTrail, trailToMaestro } from "../engine/export/mod.ts";
import { looksLikeMaestroFlow } from "../engine/formats/mod.ts";

/** The formats that write a trail for another runner. */
export const TRAIL_EXPORT_FORMATS = ["playwright", "maestro", "recorder"] as const;
export type TrailExportFormat = typeof TRAIL_EXPORT_FORMATS[number];

/** Whether a format is one of {@linkcode TRAIL_EXPORT_FORMATS}. */
export function isTrailFormat(f: string): f is TrailExportFormat {
  return (TRAIL_EXPORT_FORMATS as readonly string[]).includes(f);
}

/**
 * Reads the trail to export: a trail file, a Maestro flow file, or a stored session's adaptive
 * projection.
 *
 * @param args the parsed arguments (the database flags)
 * @param target a file path or a session id
 * @returns the trail
 * @throws {InputError} naming the file or session
 */
export async function loadTrailTarget(args: ParsedArgs, target: string): Promise<Trail> {
  let text: string | undefined;
  try {
    text = await Deno.readTextFile(target);
  } catch (err) {
    if (err instanceof Deno.errors.IsADirectory) {
      throw new InputError(`${target}: is a folder; name a trail file or a session`);
    }
    if (!(err instanceof Deno.errors.NotFound)) {
      throw new InputError(`${target}: ${(err as Error).message}`);
    }
  }
  if (text !== undefined) {
    if (/^\s*[{[]/.test(text)) {
      throw new InputError(
        `${target}: a JSON file, not a trail: \`cairn optimize ${target} -o t.trail.yaml\` projects a capture into one`,
      );
    }
    try {
      if (looksLikeMaestroFlow(text)) return maestroToTrail(text, target);
      return parseTrail(text, target);
    } catch (err) {
      if (err instanceof SyntaxError) throw new InputError(err.message);
      throw err;
    }
  }
  if (/\.(json|jsonl|ya?ml)$/i.test(target) || target.includes("/")) {
    throw new InputError(`${target}: no such file`);
  }
  const store = openStore(args, { existing: true, readOnly: true });
  try {
    const sessionId = ((await matchStream(store, target)) ?? target).replace(/^session-/, "");
    return (await projectSessionTrail(store, sessionId, { mode: "adaptive" })).trail;
  } catch (err) {
    if (err instanceof NotFoundError) {
      throw new InputError(`${target}: neither a trail file nor a stored session`);
    }
    throw err;
  } finally {
    store.close();
  }
}

/**
 * Renders the trail of `target` in a format.
 *
 * @param args the parsed arguments
 * @param target a trail file or a session
 * @param format the format
 * @param options the Maestro app id
 * @returns the text, warnings and file name
 */
export async function renderTrailExport(
  args: ParsedArgs,
  target: string,
  format: TrailExportFormat,
  options: { appId?: string } = {},
): Promise<ExportResult> {
  const trail = await loadTrailTarget(args, target);
  switch (format) {
    case "playwright":
      return trailToPlaywright(trail);
    case "recorder":
      return trailToRecorder(trail);
    case "maestro":
      return trailToMaestro(trail, options);
  }
}
