import {
  assert,
  assertEquals,
  assertStringIncludes,
  assertThrows,
} from "../../_fixtures/assert.ts";
import { parseTrail, stringifyTrail, type Trail } from "../../../engine/trail/trail.ts";

/** Seed 000's "After post-processing" trail, verbatim (shared with the optimizer golden test). */
const AFTER_000 = Deno.readTextFileSync(
  new URL("../../testdata/optimizer/seed_000_after.yaml", import.meta.url),
);

Deno.test("parseTrail() reads 000's after trail into the normalised model", () => {
  const t = parseTrail(AFTER_000);
  assertEquals(t.config.memory, { email: "alice@example.com", password: "password123" });
  assertEquals(t.trail[0]!.recording![0], { kind: "inputText", text: "{{email}}" });
  assertEquals(t.trail[0]!.recording![1], { kind: "tap", selector: { id: "next-button" } });
  assertEquals(t.trail[1]!.recording![0], {
    kind: "readText",
    selector: { id: "inventory-count" },
    storeAs: "inventoryCount",
  });
  assertEquals(t.trail[3]!.recording![0]!.equals, "{{inventoryCount + 2}}");
});

Deno.test("stringifyTrail() writes 000's after trail back byte for byte", () => {
  assertEquals(stringifyTrail(parseTrail(AFTER_000)), AFTER_000);
});

Deno.test("parseTrail() expands the compact forms of 000's before trail", () => {
  const t = parseTrail(`config: {}
trail:
  - step: s
    recording:
      - inputText: "alice@example.com"
      - tap: "Next"
      - readText: "5"
      - assertVisible: "7"
      - tap: { text: "Add item" }
      - back
      - navigate: https://example.com/
`);
  assertEquals(t.trail[0]!.recording, [
    { kind: "inputText", text: "alice@example.com" },
    { kind: "tap", selector: { text: "Next" } },
    { kind: "readText", selector: { text: "5" } },
    { kind: "assertVisible", selector: { text: "7" } },
    { kind: "tap", selector: { text: "Add item" } },
    { kind: "back" },
    { kind: "navigate", url: "https://example.com/" },
  ]);
});

Deno.test("parseTrail() reads ${name} as {{name}} and web spellings as tap and inputText", () => {
  const t = parseTrail(`config: { platform: web }
trail:
  - step: s
    selectorMode: strict
    recording:
      - type: { selector: { testId: email, parent: { id: form } }, text: "\${merchant_email}" }
      - click: { ariaLabel: Send }
  - step: Pick a slot
    recordable: false
`);
  const rec = t.trail[0]!.recording!;
  assertEquals(rec[0], {
    kind: "inputText",
    selector: { testId: "email", childOf: { id: "form" } },
    text: "{{merchant_email}}",
  });
  assertEquals(rec[1], { kind: "tap", selector: { ariaLabel: "Send" } });
  assertEquals(t.trail[0]!.selectorMode, "strict");
  assertEquals(t.trail[1]!.recordable, false);
  const y = stringifyTrail(t);
  assertStringIncludes(y, "- type:\n");
  assertStringIncludes(y, "- click:\n");
  assertEquals(parseTrail(y), t);
});

Deno.test("stringifyTrail() is stable: key order of the input does not change the bytes", () => {
  const a: Trail = {
    trail: [{
      recording: [{
        storeAs: "n",
        selectors: [{ text: "5", id: "count" }, {
          xy: [10, 20],
          viewport: { height: 2, width: 1 },
        }],
        kind: "readText",
      }],
      step: "Read",
    }],
    config: { memory: { b: "2", a: null }, platform: "android", id: "x" },
  };
  const b: Trail = {
    config: { id: "x", platform: "android", memory: { a: null, b: "2" } },
    trail: [{
      step: "Read",
      recording: [{
        kind: "readText",
        selectors: [{ id: "count", text: "5" }, {
          viewport: { width: 1, height: 2 },
          xy: [10, 20],
        }],
        storeAs: "n",
      }],
    }],
  };
  assertEquals(stringifyTrail(a), stringifyTrail(b));
  assertStringIncludes(stringifyTrail(a), "xy: [ 10, 20 ]");
  assertEquals(parseTrail(stringifyTrail(a)), parseTrail(stringifyTrail(b)));
});

Deno.test("parseTrail() names the line and column of malformed YAML once, on one line", () => {
  const err = assertThrows(
    () => parseTrail("trail: [1\nx: 2", "t.yaml"),
    SyntaxError,
    "t.yaml:2:1",
  );
  assertEquals(err.message.split("\n").length, 1);
  assert(!/at line \d+, column \d+/.test(err.message), err.message);
  assert(!err.message.endsWith(":"), err.message);
});

Deno.test("parseTrail() names the path of an unknown action and a bad field", () => {
  assertThrows(
    () => parseTrail("config: {}\ntrail:\n  - step: a\n    recording:\n      - tapp: x\n", "f"),
    SyntaxError,
    'f: trail.0.recording.0: unknown action "tapp"',
  );
  assertThrows(
    () =>
      parseTrail("config: {}\ntrail:\n  - step: a\n    recording:\n      - tap: { bogus: 1 }\n"),
    SyntaxError,
    "trail.0.recording.0",
  );
});

Deno.test("parseTrail() refuses actions that can never run, naming the field", () => {
  const cases: [string, string][] = [
    ["click: {}", "f: trail.0.recording.1.click: needs a selector (or selectors)"],
    [
      'assertText: { equals: "1" }',
      "f: trail.0.recording.1.assertText: needs a selector (or selectors)",
    ],
    [
      "assertText: { selector: { id: n } }",
      "f: trail.0.recording.1.assertText: needs equals or matches",
    ],
    [
      'assertText: { selector: { id: n }, equals: "1", matches: "1" }',
      "f: trail.0.recording.1.assertText: has both equals and matches: give one",
    ],
    [
      'assertText: { selector: { id: n }, matches: "\\\\$([0-9" }',
      "f: trail.0.recording.1.assertText.matches: invalid regular expression: /\\$([0-9/",
    ],
    ['memorySet: { key: x, value: "1" }', "f: trail.0.recording.1.memorySet"],
    ['memorySet: { value: "1" }', "f: trail.0.recording.1.memorySet.storeAs: required"],
    [
      'click: { selector: { text: "" } }',
      "f: trail.0.recording.1.click.selector.text: empty: it would match nothing",
    ],
    [
      'click: { selector: { role: button, childOf: { cssPath: "" } } }',
      "f: trail.0.recording.1.click.selector.childOf.cssPath: empty: it would match nothing",
    ],
  ];
  for (const [action, message] of cases) {
    const yaml =
      `config: {}\ntrail:\n  - step: a\n    recording:\n      - back\n      - ${action}\n`;
    assertThrows(() => parseTrail(yaml, "f"), SyntaxError, message);
  }
  const ok = parseTrail(
    "config: {}\ntrail:\n  - step: a\n    recording:\n" +
      '      - assertText: { selector: { id: n }, matches: "\\\\$\\\\d+ x{{count}}" }\n',
  );
  assertEquals(ok.trail[0]?.recording?.[0]?.matches, "\\$\\d+ x{{count}}");
});
