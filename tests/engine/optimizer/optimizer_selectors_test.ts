import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { generatedClassReason, generatedIdReason } from "../../../engine/optimizer/generated.ts";
import { rankSelectors } from "../../../engine/optimizer/selectors.ts";
import { chooseSelector } from "../../../engine/optimizer/modes.ts";
import { ScreenTable } from "../../../engine/screens/screen_table.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { makeNode, type UiNode, type UiNodeInit } from "../../../engine/screens/ui_node.ts";

let y = 0;
function n(init: Omit<UiNodeInit, "bounds">): UiNode {
  y += 100;
  return makeNode({ ...init, bounds: { x: 0, y, w: 500, h: 80 } });
}
function screen(...children: UiNode[]): ScreenTable {
  return ScreenTable.from(
    makeNode({ className: "Root", bounds: { x: 0, y: 0, w: 1000, h: 5000 }, children }),
  );
}
function best(t: ScreenTable, node: UiNode, platform: "android" | "web" = "android") {
  const c = rankSelectors(t, t.indexOf(node), { platform });
  return c.find((x) => !x.rejected)?.selector;
}

const GENERATED: [string, string][] = [
  ["3f2504e0-4f89-11d3-9a0c-0305e82c3301", "a GUID"],
  [":r3:", "a React useId"],
  ["ember123", "a framework counter"],
  ["row-1234567", "a long digit run"],
  ["btn-deadbeefcafe", "a hash"],
  ["com.app:id/r7", "an obfuscated resource name"],
];
for (const [id, why] of GENERATED) {
  Deno.test(`generatedIdReason() flags ${id} as ${why}`, () => {
    assertEquals(generatedIdReason(id), why);
  });
}
for (
  const id of ["next-button", "com.example:id/sign_in_button", "email_field", "checkout-email"]
) {
  Deno.test(`generatedIdReason() accepts the authored id ${id}`, () => {
    assertEquals(generatedIdReason(id), undefined);
  });
}
Deno.test("generatedClassReason() flags CSS-in-JS and obfuscated classes only", () => {
  assert(generatedClassReason("css-1x7q2v"));
  assert(generatedClassReason("a.b.c"));
  assertEquals(generatedClassReason("android.widget.Button"), undefined);
});

Deno.test("rankSelectors() prefers a unique id over content description and text", () => {
  const b = n({
    className: "Button",
    resourceId: "save",
    contentDescription: "Save",
    text: "Save",
  });
  assertEquals(best(screen(b), b), { id: "save" });
});

Deno.test("rankSelectors() never chooses a generated id", () => {
  const b = n({ className: "Button", resourceId: ":r3:", contentDescription: "Apply" });
  const t = screen(b);
  const c = rankSelectors(t, t.indexOf(b), { platform: "android" });
  assertEquals(c.find((x) => !x.rejected)?.selector, { contentDescription: "Apply" });
  assertStringIncludes(c.find((x) => x.selector.id === ":r3:")!.rejected!, "React useId");
});

Deno.test("rankSelectors() adds the text when an id repeats", () => {
  const a = n({ className: "TextView", resourceId: "row", text: "Apples" });
  const b = n({ className: "TextView", resourceId: "row", text: "Pears" });
  assertEquals(best(screen(a, b), b), { id: "row", text: "Pears" });
});

Deno.test("rankSelectors() adds parent context when id and text repeat", () => {
  const a = n({ className: "TextView", resourceId: "qty", text: "1" });
  const b = n({ className: "TextView", resourceId: "qty", text: "1" });
  const list1 = n({ className: "Group", resourceId: "list-a", children: [a] });
  const list2 = n({ className: "Group", resourceId: "list-b", children: [b] });
  assertEquals(best(screen(list1, list2), b), { id: "qty", childOf: { id: "list-b" } });
});

Deno.test("rankSelectors() falls back to class and index for an anonymous node", () => {
  const a = n({ className: "ImageView" });
  const b = n({ className: "ImageView" });
  assertEquals(best(screen(a, b), b), { className: "ImageView", index: 1 });
});

Deno.test("rankSelectors() orders web candidates testId > aria-label > role + name > id", () => {
  const b = n({
    className: "button",
    role: "button",
    name: "Send",
    resourceId: "send",
    testId: "send-btn",
    contentDescription: "Send message",
  });
  const t = screen(b);
  const fams = rankSelectors(t, t.indexOf(b), { platform: "web" }).map((c) => c.family);
  assertEquals(fams.slice(0, 4), ["testId", "contentDescription", "roleName", "id"]);
});

Deno.test("chooseSelector() in strict mode refuses text and coordinates", () => {
  const b = n({ className: "Button", text: "Go" });
  const t = screen(b);
  const c = rankSelectors(t, t.indexOf(b), { platform: "android", point: { x: 10, y: 10 } });
  const r = chooseSelector(c, "strict");
  assertEquals(r.selector, undefined);
  assertStringIncludes(r.error!, "strict mode");
});

Deno.test("chooseSelector() in flexible mode prefers text over an id", () => {
  const b = n({ className: "Button", resourceId: "go", text: "Go" });
  const t = screen(b);
  assertEquals(
    chooseSelector(rankSelectors(t, t.indexOf(b), { platform: "android" }), "flexible").selector,
    { text: "Go" },
  );
});

Deno.test("chooseSelector() in adaptive mode emits a chain when no id exists", () => {
  const b = n({ className: "Button", contentDescription: "Menu", text: "☰" });
  const t = screen(b);
  const c = rankSelectors(t, t.indexOf(b), {
    platform: "android",
    point: { x: 5, y: 5 },
    size: { width: 1000, height: 5000 },
  });
  assertEquals(chooseSelector(c, "adaptive").selectors, [
    { contentDescription: "Menu" },
    { text: "☰" },
    { xy: [5, 5], viewport: { width: 1000, height: 5000 } },
  ]);
});

Deno.test("rankRecordedSelectors() ranks a recorder's selectors by the web order, skipping generated ids", async () => {
  const { rankRecordedSelectors } = await import("../../../engine/optimizer/selectors.ts");
  const c = rankRecordedSelectors({
    aria: 'Send[role="button"]',
    css: "#\u003Ar3\u003A",
    "css.2": "[data-testid=send]",
    "css.3": "form > button",
    text: "Send",
  });
  assertEquals(c.filter((x) => !x.rejected).map((x) => x.selector), [
    { testId: "send" },
    { role: "button", name: "Send" },
    { text: "Send" },
    { cssPath: "form > button" },
  ]);
  assertEquals(rankRecordedSelectors({ css: "#submit" })[0]!.selector, { id: "submit" });
  // a trail's testId is data-testid, as playback looks it up: another test attribute stays CSS,
  // and aria/Name is an accessible name (aria-label or text), so the name comes with the label
  assertEquals(
    rankRecordedSelectors({ aria: "Mocha", css: "[data-test=Mocha]" }).map((x) => x.selector),
    [{ cssPath: "[data-test=Mocha]" }, { ariaLabel: "Mocha" }, { name: "Mocha" }],
  );
  assertEquals(rankRecordedSelectors({ css: '[data-cy="buy"]' })[0]!.family, "testId");
});

Deno.test("chooseSelector() in flexible mode writes a number in the text as \\d+", () => {
  const b = n({ className: "Button", resourceId: "cart", text: "Cart (3)" });
  const t = screen(b, n({ className: "Button", text: "Checkout" }));
  const c = rankSelectors(t, t.indexOf(b), { platform: "android" });
  assertEquals(chooseSelector(c, "flexible").selectors, [
    { textRegex: "Cart \\(\\d+\\)" },
    { text: "Cart (3)" },
  ]);
  assertEquals(chooseSelector(c, "adaptive").selector, { id: "cart" });
  assertEquals(chooseSelector(c, "strict").selector, { id: "cart" });
});

/** The wdio demo app's login screen: two EditTexts share `RNE__Input__text-input`. */
const RN_LOGIN = "/work/shared/corpus/android/uiautomator_wdio_demo_reactnative_login.xml";

Deno.test("rankSelectors() picks a unique contentDescription over id + text for EditTexts sharing an id", async () => {
  const t = ScreenTable.from(parseHierarchy(await Deno.readTextFile(RN_LOGIN)).root);
  const fields: [string, string][] = [["Email", "input-email"], ["Password", "input-password"]];
  for (const [text, desc] of fields) {
    let at = -1;
    for (let i = 0; i < t.size; i++) {
      const node = t.node(i);
      if (node.className === "android.widget.EditText" && node.text === text) at = i;
    }
    assert(at >= 0, `no EditText "${text}" on the screen`);
    const ranked = rankSelectors(t, at, { platform: "android", point: { x: 590, y: 853 } });
    const ok = ranked.filter((c) => !c.rejected);
    assertEquals(ok[0]?.selector, { contentDescription: desc });
    // The field's text (placeholder or typed value) is never offered while anything else works.
    assert(ok.every((c) => c.selector.text === undefined && c.selector.textRegex === undefined));
    for (const mode of ["strict", "flexible", "adaptive"] as const) {
      const choice = chooseSelector(ranked, mode);
      const chosen = choice.selectors ?? [choice.selector!];
      assertEquals(chosen[0], { contentDescription: desc }, mode);
      assert(chosen.every((s) => s.text === undefined), `${mode} used the field's text`);
    }
  }
});

Deno.test("rankSelectors() ranks id + parent context above id + text for a non-editable node", () => {
  const a = n({ className: "Button", resourceId: "buy", text: "Buy" });
  const b = n({ className: "Button", resourceId: "buy", text: "Buy now" });
  const card = makeNode({
    className: "Card",
    resourceId: "deal-card",
    bounds: { x: 0, y: 0, w: 600, h: 2000 },
    children: [b],
  });
  const t = screen(a, card);
  assertEquals(best(t, b), { id: "buy", childOf: { id: "deal-card" } });
  const withText = rankSelectors(t, t.indexOf(b), { platform: "android" })
    .find((c) => c.selector.id === "buy" && c.selector.text === "Buy now");
  assert(withText && withText.score > 2, `id + text scored ${withText?.score}`);
});

Deno.test("rankSelectors() rejects a web textbox's value as a selector while an id works, and keeps it only when nothing else works", () => {
  const box = n({ className: "textbox", role: "textbox", resourceId: "email", text: "a@b.co" });
  const t = screen(box);
  const ranked = rankSelectors(t, t.indexOf(box), { platform: "web", point: { x: 5, y: 5 } });
  assertEquals(ranked.find((c) => !c.rejected)?.selector, { id: "email" });
  assertStringIncludes(ranked.find((c) => c.selector.text === "a@b.co")!.rejected!, "editable");
  // An obfuscated class (rejected) and no point: the text is all there is.
  const bare = n({ className: "a.b.c", password: true, text: "Search" });
  const t2 = screen(bare);
  const only = rankSelectors(t2, t2.indexOf(bare), { platform: "android" });
  const text = only.find((c) => c.selector.text === "Search")!;
  assertEquals(text.rejected, undefined);
  assert(text.score > 6, `an editable field's text scored ${text.score}, above xy`);
  assert(
    only.every((c) => c === text || c.rejected || c.score < text.score),
    "the field's text must rank after every other working selector",
  );
});
