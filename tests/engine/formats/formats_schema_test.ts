import { assertEquals } from "../../_fixtures/assert.ts";
import { captureSchemaText, SCHEMA_PATH } from "../../../scripts/gen_schema.ts";

const ROOT = new URL("../../../", import.meta.url);

Deno.test("docs/capture.schema.json equals the schema generated from the zod schema", async () => {
  const committed = await Deno.readTextFile(new URL(SCHEMA_PATH, ROOT));
  assertEquals(committed, captureSchemaText());
});

Deno.test("docs/capture.md documents every field of the capture schema", async () => {
  const doc = await Deno.readTextFile(new URL("docs/capture.md", ROOT));
  const schema = JSON.parse(captureSchemaText());
  const header = Object.keys(schema.properties);
  const action = Object.keys(schema.properties.actions.items.properties);
  const missing = [...header, ...action].filter((f) =>
    !doc.includes(`| \`${f}\``) && !doc.includes(` / \`${f}\``)
  );
  assertEquals(missing, []);
});
