import { assert, assertEquals, assertMatch } from "../../_fixtures/assert.ts";
import {
  assignRefs,
  baseRef,
  collisionSuffix,
  isTextField,
  nodeLabel,
  refFromHash,
  refHash,
  round10,
} from "../../../engine/screens/refs.ts";
import { makeNode } from "../../../engine/screens/ui_node.ts";

/** The definition, spelled out with TextEncoder (the fast path encodes UTF-8 by hand). */
function specHash(className: string, label: string, cx: number, cy: number): number {
  const bytes = new TextEncoder().encode(
    className + "\u0000" + label + "\u0000" + String(round10(cx)) + "," + String(round10(cy)),
  );
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h >>> 0;
}

Deno.test("refHash() equals FNV-1a over the UTF-8 bytes of the spec string", () => {
  const cases: [string, string, number, number][] = [
    ["", "", 0, 0],
    ["android.widget.Button", "OK", 540, 1200],
    ["XCUIElementTypeStaticText", "8:07\u202fAM", 74, 32],
    ["android.view.View", "\u{1F1EC}\u{1F1E7}\nEnglish", -3, 7],
    ["button", "宠物需要「悬浮窗」权限", 1234.5, 99.4],
    ["TextView", "\uDC00 lone surrogate", 5, 15],
  ];
  for (const [c, l, x, y] of cases) assertEquals(refHash(c, l, x, y), specHash(c, l, x, y), l);
  // random strings over ASCII, BMP and astral code points
  let seed = 7;
  const rnd = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  for (let i = 0; i < 500; i++) {
    let s = "";
    for (let k = rnd(12); k > 0; k--) {
      const kind = rnd(3);
      s += String.fromCodePoint(
        kind === 0 ? 32 + rnd(95) : kind === 1 ? 0x100 + rnd(0xd000) : 0x10000 + rnd(0x10000),
      );
    }
    const x = rnd(3000) - 100, y = rnd(3000) - 100;
    assertEquals(refHash("C" + s, s, x, y), specHash("C" + s, s, x, y), JSON.stringify(s));
  }
});

Deno.test("refHash() ignores moves inside the same 10 px cell and sees larger ones", () => {
  assertEquals(refHash("Button", "OK", 541, 1199), refHash("Button", "OK", 544, 1196));
  assert(refHash("Button", "OK", 540, 1200) !== refHash("Button", "OK", 560, 1200));
});

Deno.test("refFromHash() is one letter and 1-3 digits", () => {
  assertEquals(refFromHash(0), "a0");
  assertEquals(refFromHash(25), "z0");
  assertEquals(refFromHash(26 * 778 + 24), "y778");
  assertEquals(refFromHash(26 * 1042 + 10), "k42");
  assertEquals(refFromHash(0xffffffff), "v49"); // 4294967295 = 26 * 165191049 + 21
  for (let h = 1; h < 0xffffffff; h = h * 3 + 17) assertMatch(refFromHash(h), /^[a-z]\d{1,3}$/);
});

Deno.test("collisionSuffix() counts b, c, … z, ba in order", () => {
  assertEquals([0, 1, 2, 25, 26, 27].map(collisionSuffix), ["", "b", "c", "z", "ba", "bb"]);
});

Deno.test("assignRefs() suffixes collisions in document order, deterministically", () => {
  const a = makeNode({ className: "Button", text: "OK", bounds: { x: 0, y: 0, w: 40, h: 20 } });
  const b = makeNode({ className: "Button", text: "OK", bounds: { x: 2, y: 1, w: 40, h: 20 } });
  const c = makeNode({ className: "Button", text: "Cancel", bounds: { x: 0, y: 0, w: 40, h: 20 } });
  const base = baseRef(a);
  assertEquals(assignRefs([a, c, b]), [base, baseRef(c), base + "b"]);
  assertEquals(assignRefs([b, a]), [base, base + "b"]);
  assertEquals(assignRefs([a, c, b]), assignRefs([a, c, b]));
});

Deno.test("nodeLabel() of a text field is its description, else name, else hint, never its text", () => {
  const field = (init: Record<string, string>, className = "android.widget.EditText") =>
    makeNode({ className, ...init });
  assertEquals(nodeLabel(field({ text: "bob@example.com", hint: "Email" })), "Email");
  assertEquals(nodeLabel(field({ text: "Email", hint: "Email" })), "Email");
  assertEquals(
    nodeLabel(field({ text: "bob", contentDescription: "input-email", hint: "Email" })),
    "input-email",
  );
  assertEquals(nodeLabel(field({ text: "typed, no hint reported" })), "");
  assertEquals(nodeLabel(field({ name: "Search", hint: "Find", text: "q" }, "textbox")), "Search");
  assertEquals(
    nodeLabel(field({ text: "x" }, "com.google.android.material.textfield.TextInputEditText")),
    "",
  );
  assertEquals(
    nodeLabel(field({ text: "OK", contentDescription: "ok" }, "android.widget.Button")),
    "OK",
  );
  assert(isTextField({ className: "XCUIElementTypeSecureTextField" }));
  assert(!isTextField({ className: "android.widget.TextView" }));
  const at = { x: 0, y: 0, w: 100, h: 40 };
  const empty = makeNode({
    className: "android.widget.EditText",
    text: "Email",
    hint: "Email",
    bounds: at,
  });
  const typed = makeNode({
    className: "android.widget.EditText",
    text: "bob",
    hint: "Email",
    bounds: at,
  });
  assertEquals(baseRef(typed), baseRef(empty));
});
