/**
 * Generates `docs/capture.schema.json`, the JSON Schema of `cairn.capture/v1`, from the zod
 * schema in `engine/formats/capture_v1.ts` (`z.toJSONSchema`, input side). A test keeps the
 * committed file equal to this output.
 *
 * Usage: `deno run -A scripts/gen_schema.ts` (writes the file) or `--check` (exit 1 when stale).
 *
 * @module
 */
import { z } from "zod";
import { CAPTURE_FORMAT, CaptureV1 } from "../engine/formats/capture_v1.ts";

/** Where the schema is written, relative to the repository root. */
export const SCHEMA_PATH = "docs/capture.schema.json";

/**
 * The JSON Schema text of a capture file.
 *
 * @returns the schema as pretty JSON with a final newline
 */
export function captureSchemaText(): string {
  const schema = z.toJSONSchema(CaptureV1, { io: "input", target: "draft-2020-12" });
  const doc = {
    $schema: schema.$schema,
    $id: "capture.schema.json",
    title: CAPTURE_FORMAT,
    description:
      "Cairn's raw capture of a run: a header and one entry per action (docs/capture.md)",
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$schema")),
  };
  return JSON.stringify(doc, null, 2) + "\n";
}

if (import.meta.main) {
  const path = new URL(`../${SCHEMA_PATH}`, import.meta.url);
  const text = captureSchemaText();
  if (Deno.args.includes("--check")) {
    const current = await Deno.readTextFile(path).catch(() => "");
    if (current !== text) {
      console.error(`${SCHEMA_PATH} is stale: run deno run -A scripts/gen_schema.ts`);
      Deno.exit(1);
    }
  } else {
    await Deno.writeTextFile(path, text);
    console.log(`wrote ${SCHEMA_PATH}`);
  }
}
