/**
 * Test helper: checks a real answer of the HTTP API against the response schema `/openapi.json`
 * lists for its route and status, with a JSON Schema validator (`$ref`s into the document's
 * components resolve).
 *
 * @module
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { assert } from "./assert.ts";
import { IsoDateTime } from "../../events/iso_date_time.ts";

/** The id the OpenAPI document's components are registered under in the validator. */
const DOC = "https://cairn.invalid/openapi.json";

/** Checks answers against one OpenAPI document. */
export type AnswerCheck = (value: unknown, path: string, method: string, status: string) => void;

/**
 * A checker of answers against an OpenAPI document's response schemas.
 *
 * @param doc the document (`GET /openapi.json`)
 * @returns a function asserting that a value fits the JSON answer of `method path` at `status`
 */
export function answerChecker(doc: {
  components: unknown;
  paths: Record<string, Record<string, unknown>>;
}): AnswerCheck {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // a date-time is what the log takes (`meta.recordedAt`)
  ajv.addFormat("date-time", { validate: (s: string) => IsoDateTime.safeParse(s).success });
  ajv.addSchema({ $id: DOC, components: doc.components });
  return (value, path, method, status) => {
    const op = doc.paths[path]?.[method] as
      | { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }
      | undefined;
    const schema = op?.responses[status]?.content?.["application/json"]?.schema;
    assert(schema, `/openapi.json lists a JSON schema for ${method} ${path} ${status}`);
    const check = ajv.compile(refsToDoc(schema));
    assert(check(value), `${method} ${path} ${status}: ${JSON.stringify(check.errors)}`);
  };
}

/** A response schema whose `$ref`s point into the document's components (registered as DOC). */
function refsToDoc(schema: unknown): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(schema).replaceAll('"#/components/', `"${DOC}#/components/`),
  ) as Record<string, unknown>;
}
