import { assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import { FormatError } from "../../../engine/input/format_error.ts";
import { decodeUtf8 } from "../../../engine/input/utf8_text.ts";

const enc = new TextEncoder();
function bytes(...parts: (string | number[])[]): Uint8Array {
  return new Uint8Array(parts.flatMap((p) => typeof p === "string" ? [...enc.encode(p)] : p));
}

Deno.test("decodeUtf8() reads UTF-8, multi-byte characters included", () => {
  assertEquals(decodeUtf8(bytes('{"prompt":"café ☕ 🦄"}')), '{"prompt":"café ☕ 🦄"}');
  assertEquals(decodeUtf8(new Uint8Array()), "");
});

Deno.test("decodeUtf8() skips a UTF-8 byte order mark", () => {
  assertEquals(decodeUtf8(bytes([0xef, 0xbb, 0xbf], '{"a":1}')), '{"a":1}');
});

const BAD: [string, Uint8Array, string][] = [
  [
    "a Latin-1 é",
    bytes('{"prompt":\n"caf', [0xe9], '"}'),
    "byte offset 15 (line 2): not UTF-8 (byte 0xe9); save the file as UTF-8",
  ],
  ["a sequence cut at the end", bytes('"ab', [0xe2, 0x98]), "byte offset 3 (line 1): "],
  ["an overlong NUL", bytes("a", [0xc0, 0x80]), "byte offset 1 (line 1): not UTF-8 (byte 0xc0)"],
  ["a UTF-16 surrogate", bytes("ab", [0xed, 0xa0, 0x80]), "byte offset 2 (line 1): "],
  ["a code point above U+10FFFF", bytes([0xf4, 0x90, 0x80, 0x80]), "byte offset 0 (line 1): "],
  [
    "UTF-16 LE with a byte order mark",
    new Uint8Array([0xff, 0xfe, 0x7b, 0x00]),
    "UTF-16 is not supported (byte order mark FF FE); save the file as UTF-8",
  ],
  [
    "UTF-16 BE with a byte order mark",
    new Uint8Array([0xfe, 0xff, 0x00, 0x7b]),
    "UTF-16 is not supported (byte order mark FE FF)",
  ],
  [
    "UTF-16 LE without one",
    new Uint8Array([0x7b, 0x00, 0x7d, 0x00]),
    "UTF-16 is not supported (a NUL byte at the start)",
  ],
];

for (const [name, input, message] of BAD) {
  Deno.test(`decodeUtf8() refuses ${name}, naming where`, () => {
    assertThrows(() => decodeUtf8(input), FormatError, message);
  });
}
