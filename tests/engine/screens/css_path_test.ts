import { assertEquals } from "../../_fixtures/assert.ts";
import { cssEscape, CssPathBuilder, isGeneratedName } from "../../../engine/screens/css_path.ts";

Deno.test("isGeneratedName() tells generated class names and ids from authored ones", () => {
  const cases: [string, boolean][] = [
    ["css-1x2y3z4", true],
    ["sc-aXZVg", true],
    ["jsx-2738452", true],
    ["Button_primary__3fGh2", true],
    [":r1:", true],
    ["ember123", true],
    ["a1b2c3d4e5", true],
    ["3f2a1b9c-1d2e-4f00-9abc-0123456789ab", true],
    ["submit-button", false],
    ["btn", false],
    ["primary", false],
    ["MuiButton-root", false],
    ["nav-form", false],
    ["col-md-6", false],
  ];
  for (const [name, want] of cases) assertEquals(isGeneratedName(name), want, name);
});

Deno.test("cssEscape() escapes like CSS.escape", () => {
  assertEquals(cssEscape("plain-id_1"), "plain-id_1");
  assertEquals(cssEscape("1a"), "\\31 a");
  assertEquals(cssEscape("a.b:c"), "a\\.b\\:c");
  assertEquals(cssEscape("-"), "\\-");
});

Deno.test("CssPathBuilder.path() anchors on ids, skips generated classes, pierces shadow roots", () => {
  // 0 html, 1 body, 2 div#app, 3 ul, 4 li, 5 li.css-9a8b7c6.item, 6 x-card (host), 7 button (shadow)
  const b = new CssPathBuilder({
    parent: Int32Array.from([-1, 0, 1, 2, 3, 3, 1, 6]),
    tag: ["html", "body", "div", "ul", "li", "li", "x-card", "button"],
    id: ["", "", "app", "", "", "", "", ""],
    className: ["", "", "", "", "item", "css-9a8b7c6 item", "", ""],
    inShadow: Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 1]),
  });
  assertEquals(b.path(2), "#app");
  assertEquals(b.path(4), "#app > ul > li.item:nth-of-type(1)");
  assertEquals(b.path(5), "#app > ul > li.item:nth-of-type(2)");
  assertEquals(b.path(7), "body > x-card >>> button");
});
