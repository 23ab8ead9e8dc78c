import { assertEquals } from "../../_fixtures/assert.ts";
import { liftJson, restoreLifted } from "../../../engine/input/mod.ts";
import { realisticCapture } from "../../_fixtures/realistic_capture.ts";

const enc = new TextEncoder();

Deno.test("liftJson() then restoreLifted() gives what JSON.parse gives, on a capture of real dumps and on odd strings", () => {
  const capture = realisticCapture({ actions: 6 });
  const doc = liftJson(enc.encode(capture))!;
  assertEquals(doc.lifted, 6); // the six inline hierarchies
  assertEquals(restoreLifted(doc), JSON.parse(capture));

  // escapes of every kind, non-Latin text, a "__proto__" key holding a long string, a BOM
  const odd = {
    ["__proto__"]: "é".repeat(40), // computed: an own key, as JSON.parse makes it
    a: ['"quoted" \\ / \b\f\n\r\t \u0001 \ud83d\ude00 日本語 '.repeat(8)],
    nested: { deep: [{ s: "<hierarchy>".repeat(20) }], short: "x", n: 1.5, t: true, z: null },
  };
  const text = JSON.stringify(odd);
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode(text)]);
  const lifted = liftJson(bom, 64)!;
  assertEquals(lifted.lifted, 3);
  const back = restoreLifted(lifted) as Record<string, unknown>;
  assertEquals(JSON.stringify(back), text);
  assertEquals(Object.getPrototypeOf(back), Object.prototype);
  assertEquals(Object.hasOwn(back, "__proto__"), true);
});

Deno.test("liftJson() lifts long values, never keys", () => {
  const key = "k".repeat(100);
  const text = `{"${key}" : {"${key}"\n:"${"v".repeat(100)}"}, "list": ["${"w".repeat(100)}"]}`;
  const doc = liftJson(enc.encode(text), 64)!;
  assertEquals(doc.lifted, 2);
  assertEquals(Object.keys(doc.value as object), [key, "list"]);
  assertEquals(restoreLifted(doc), JSON.parse(text));
});

Deno.test("restoreLifted() leaves the placeholders it is told to keep, and text() resolves only its own", () => {
  const long = "<node/>".repeat(20);
  const doc = liftJson(enc.encode(JSON.stringify({ actions: [{ h: long, note: long }] })), 64)!;
  const v = restoreLifted(doc, (path) => path.join(".") === "actions.0.h") as {
    actions: { h: string; note: string }[];
  };
  assertEquals(v.actions[0]!.note, long);
  assertEquals(v.actions[0]!.h === long, false);
  assertEquals(doc.text(v.actions[0]!.h), long);
  // another document's placeholder, or a look-alike, is not this one's
  const other = liftJson(enc.encode(JSON.stringify({ h: long })), 64)!;
  assertEquals(doc.text((other.value as { h: string }).h), undefined);
  assertEquals(doc.text("\u0000cairn-lifted:x:0"), undefined);
});

Deno.test("liftJson() gives the file back to the whole-text reader for anything but one well-formed document", () => {
  const long = "y".repeat(100);
  const cases: [string, Uint8Array][] = [
    ["no long string", enc.encode(JSON.stringify({ a: "short" }))],
    ["malformed JSON", enc.encode(`{"a": "${long}",}`)],
    ["JSON lines", enc.encode(`{"a": "${long}"}\n{"b": 1}\n`)],
    ["a raw control character in a string", enc.encode(`{"a": "${long}\u0001"}`)],
    ["a bad escape", enc.encode(`{"a": "${long}\\x"}`)],
    ["a short \\u escape", enc.encode(`{"a": "${long}\\u12"}`)],
    ["a string cut short", enc.encode(`{"a": "${long}`)],
    ["not UTF-8", new Uint8Array([...enc.encode(`{"a": "${long}`), 0xff, 0x22, 0x7d])],
    ["UTF-16", new Uint8Array([0xff, 0xfe, ...enc.encode(`{"a": "${long}"}`)])],
  ];
  for (const [what, bytes] of cases) assertEquals(liftJson(bytes, 64), undefined, what);
});
