import { assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import { FormatError } from "../../../engine/input/format_error.ts";
import { lineColumn, parseJson } from "../../../engine/input/json_text.ts";

const CASES: [string, string, string][] = [
  ["a missing value", '{\n  "a": ,\n}', "line 2, column 8: expected a value"],
  [
    "a trailing comma",
    '{"a": 1,\n}',
    "line 2, column 1: expected a property name in double quotes",
  ],
  ["single quotes", "{'a': 1}", "line 1, column 2: expected a property name"],
  [
    "a truncated file",
    '{"a": [1, 2',
    "line 1, column 12: unexpected end of input (is the file truncated?)",
  ],
  ["a truncated string", '{"a": "x', "line 1, column 9: unexpected end of input"],
  ["text after the value", '{"a": 1} x', "line 1, column 10: unexpected text after the JSON value"],
  ["an empty file", "  ", "line 1, column 1: empty file"],
  ["a bad escape", '["\\q"]', "line 1, column 4: bad escape"],
  ["a raw newline in a string", '["a\nb"]', "line 1, column 4: control character in string"],
  ["a bad literal", "[tru]", "line 1, column 5: expected true"],
];

for (const [name, text, message] of CASES) {
  Deno.test(`parseJson() names the line and column of ${name}`, () => {
    assertThrows(() => parseJson(text), FormatError, message);
  });
}

Deno.test("parseJson() returns the value of valid JSON", () => {
  assertEquals(parseJson('{"a": [1, "b", null, true]}'), { a: [1, "b", null, true] });
});

Deno.test("lineColumn() counts lines and columns from 1", () => {
  assertEquals(lineColumn("ab\ncd", 4), { line: 2, column: 2 });
  assertEquals(lineColumn("ab", 0), { line: 1, column: 1 });
});
