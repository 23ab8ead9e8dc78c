/**
 * `cairn ingest FLOW.yaml`: a Maestro flow becomes a trail (a flow is a script, not a capture:
 * there is no session to store). The trail is written under the `trails/` folder beside the
 * database, named after the flow's `name` (else the file's), and its path printed.
 *
 * @module
 */
import { basename, join } from "node:path";
import type { ParsedArgs } from "./args.ts";
import { filesDir } from "./context.ts";
import { InputError } from "./errors.ts";
import { readNamedFile } from "./_capture_files.ts";
import { looksLikeMaestroFlow } from "../engine/formats/mod.ts";
import { maestroToTrail } from "../engine/export/mod.ts";
import { stringifyTrail, type Trail } from "../engine/trail/mod.ts";
import { trailStem } from "../engine/export/mod.ts";

/** A flow read into a trail, not written yet. */
export interface PreparedFlow {
  file: string;
  trail: Trail;
}

/**
 * Reads `path` as a Maestro flow when it is one.
 *
 * @param path the file
 * @returns the trail, or undefined when the file is not a Maestro flow
 * @throws {InputError} naming the file, line and command a trail cannot hold
 */
export async function prepareFlow(path: string): Promise<PreparedFlow | undefined> {
  if (!/\.ya?ml$/i.test(path)) return undefined;
  let text: string;
  try {
    // only a regular file is read (a FIFO would block); within the default size limit
    text = new TextDecoder().decode(await readNamedFile(path));
  } catch {
    return undefined; // the capture import names what is wrong with the file
  }
  let flow = false;
  try {
    flow = looksLikeMaestroFlow(text);
  } catch {
    return undefined;
  }
  if (!flow) return undefined;
  try {
    const warnings: string[] = [];
    const trail = maestroToTrail(text, path, warnings);
    for (const w of warnings) console.error(`warning: ${w}`);
    return { file: path, trail };
  } catch (err) {
    if (err instanceof SyntaxError) throw new InputError(err.message);
    throw err;
  }
}

/**
 * Writes a flow's trail beside the database: `<db folder>/trails/<name>.trail.yaml`.
 *
 * @param args the parsed arguments (the database path)
 * @param flow the prepared flow
 * @returns the path written
 */
export async function writeFlowTrail(args: ParsedArgs, flow: PreparedFlow): Promise<string> {
  const dir = join(filesDir(args), "trails");
  await Deno.mkdir(dir, { recursive: true });
  const stem = flow.trail.config.id
    ? trailStem(flow.trail)
    : basename(flow.file).replace(/\.ya?ml$/i, "");
  const out = join(dir, `${stem}.trail.yaml`);
  await Deno.writeTextFile(out, stringifyTrail(flow.trail));
  return out;
}
