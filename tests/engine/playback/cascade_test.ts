import { assertEquals } from "../../_fixtures/assert.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { ScreenFinder } from "../../../drivers/android/screen_lookup.ts";
import {
  anchoredPattern,
  androidCascade,
  describeTried,
  resolveTarget,
  sanitizeCssPath,
  textQueries,
  WEB_WITHIN,
  webCascade,
  xpathString,
} from "../../../engine/playback/cascade.ts";

const FULL = {
  testId: "submit",
  ariaLabel: "Log in",
  role: "button",
  name: "Log in",
  id: "submit-btn",
  text: "Sign in",
  cssPath: "form > button.css-1x2y3z",
  point: { x: 10, y: 20 },
};

Deno.test("webCascade() orders the seven levels of 003 and shapes them by mode", () => {
  const cases: [string, string[]][] = [
    ["adaptive", ["test_id", "aria_label", "role_name", "id", "text", "css_path", "coordinates"]],
    ["flexible", ["test_id", "aria_label", "role_name", "id", "text", "css_path"]],
    ["strict", ["test_id"]],
  ];
  for (const [mode, expected] of cases) {
    assertEquals(webCascade(FULL, mode as "strict").map((l) => l.strategy), expected);
  }
  const levels = webCascade(FULL);
  assertEquals(levels.map((l) => l.selector), [
    '[data-testid="submit"]',
    '[aria-label="Log in"]',
    'role=button[name="Log in"]',
    "#submit-btn",
    "text=Sign in",
    "form > button",
    "xy=10,20",
  ]);
  assertEquals(levels[2]!.queries, [{ using: "aria", value: "button|Log in" }]);
  assertEquals(levels[3]!.queries, [{ using: "css", value: '[id="submit-btn"]' }]);
});

Deno.test("webCascade() tries a synthetic flow's raw CSS selector first", () => {
  assertEquals(webCascade({ css: "#go", text: "Go" }).map((l) => l.strategy), ["css", "text"]);
});

Deno.test("androidCascade() plans id → content description → text → class + index → coordinates", () => {
  const levels = androidCascade({
    id: "com.app:id/ok",
    contentDescription: "Confirm",
    text: "OK",
    className: "android.widget.Button",
    index: 2,
    point: { x: 5, y: 6 },
  });
  assertEquals(levels.map((l) => l.strategy), [
    "id",
    "content_description",
    "text",
    "class_index",
    "coordinates",
  ]);
  assertEquals(levels[2]!.queries[0], {
    using: "-android uiautomator",
    value: 'new UiSelector().text("OK")',
  });
  assertEquals(
    levels[3]!.queries[0]!.value,
    'new UiSelector().className("android.widget.Button").instance(2)',
  );
});

Deno.test("sanitizeCssPath() drops generated class names and keeps authored ones", () => {
  const cases: [string, string][] = [
    ["div.css-1x9ab > button.btn.sc-hKgIl", "div > button.btn"],
    [
      "main > ul.items > li:nth-child(2) > button.primary.x7f2kq",
      "main > ul.items > li:nth-child(2) > button.primary",
    ],
    ["div.Card_title__a8Xk2 > h2", "div > h2"],
    ["section.hero > a.nav-link", "section.hero > a.nav-link"],
  ];
  for (const [input, expected] of cases) assertEquals(sanitizeCssPath(input), expected);
});

Deno.test("xpathString() quotes any string as an XPath literal", () => {
  const cases: [string, string][] = [
    ["plain", '"plain"'],
    ['say "hi"', `'say "hi"'`],
    [`it's "x"`, `concat("it's ", '"', "x", '"', "")`],
  ];
  for (const [input, expected] of cases) assertEquals(xpathString(input), expected);
});

Deno.test("textQueries() match exactly, then normalised, then case-insensitively", () => {
  const [exact, normalised, folded] = textQueries("  Add  Item ");
  assertEquals(exact!.value, '//body//*[text()[. = "  Add  Item "]]');
  assertEquals(normalised!.value.includes('normalize-space(.) = "Add Item"'), true);
  assertEquals(folded!.value.includes('= "add item"'), true);
});

Deno.test("resolveTarget() skips ambiguous and hidden levels and counts what each matched", async () => {
  const box = { x: 0, y: 0, w: 10, h: 10 };
  const finder = {
    find: (q: { using: string; value: string }) =>
      Promise.resolve(
        q.value.includes("data-testid")
          ? [{ bounds: box, visible: false, enabled: true }]
          : q.value.includes("aria-label")
          ? [{ bounds: box, visible: true, enabled: true }, {
            bounds: box,
            visible: true,
            enabled: true,
          }]
          : [{ bounds: box, visible: true, enabled: true }],
      ),
  };
  const res = await resolveTarget(finder, webCascade({ testId: "a", ariaLabel: "b", id: "c" }));
  assertEquals(res.level?.strategy, "id");
  assertEquals(res.healed, true);
  assertEquals(res.sawHidden, true);
  assertEquals(res.tried.map((t) => t.matches), [0, 2, 1]);
});

Deno.test("webCascade() scopes every lookup to a within ancestor, never unscoped (locators chain strictly)", () => {
  const levels = webCascade({ testId: "buy", text: "Buy", within: { testId: "deal" } }, "flexible");
  assertEquals(levels.map((l) => l.strategy), ["test_id", "text"]);
  assertEquals(levels[0]!.queries, [{
    using: "css",
    value: '[data-testid="deal"] [data-testid="buy"]',
  }]);
  assertEquals(levels[0]!.selector, '[data-testid="deal"] >> [data-testid="buy"]');
  assertEquals(levels[1]!.queries[0]!.value, '//*[@data-testid="deal"]//*[text()[. = "Buy"]]');
  assertEquals(webCascade({ id: "x", within: { id: "card" } }, "strict")[0]!.queries, [
    { using: "css", value: '[id="card"] [id="x"]' },
  ]);
  // a level no prefix can scope (a role + name), and a parent no prefix can express, go to the
  // driver as scoped lookups
  const role = webCascade({ role: "button", name: "Add", within: { id: "card" } });
  assertEquals(role.map((l) => l.selector), ['#card >> role=button[name="Add"]']);
  assertEquals(role[0]!.queries[0]!.using, WEB_WITHIN);
  const general = webCascade({ text: "Add", within: { role: "listitem", text: "Rose" } });
  assertEquals(general.map((l) => l.selector), ['role=listitem:has-text("Rose") >> text=Add']);
  assertEquals(general[0]!.queries[0]!.scoped, {
    query: general[0]!.queries[0]!.scoped!.query,
    scope: { aria: "listitem|", text: "Rose", label: 'role=listitem:has-text("Rose")' },
  });
});

Deno.test("webCascade() turns textRegex into an anchored pattern level and index into nth", () => {
  const [level] = webCascade({ textRegex: "Cart \\(\\d+\\)", index: 1 }, "strict");
  assertEquals(level!.strategy, "text");
  assertEquals(level!.pattern, "Cart \\(\\d+\\)");
  assertEquals(level!.nth, 1);
  assertEquals(anchoredPattern(level!.pattern!).test("Cart (3)"), true);
  assertEquals(anchoredPattern(level!.pattern!).test("My Cart (3) items"), false);
});

Deno.test("androidCascade() scopes levels under a parent with UiSelector.childSelector", () => {
  const levels = androidCascade({
    id: "title",
    textRegex: "\\d+ items",
    within: { contentDescription: "cart" },
  }, "flexible");
  assertEquals(levels.map((l) => l.strategy), ["id", "text"]);
  assertEquals(levels[0]!.queries[0], {
    using: "-android uiautomator",
    value:
      'new UiSelector().description("cart").childSelector(new UiSelector().resourceIdMatches("(.*:id/)?title"))',
  });
  assertEquals(
    levels[1]!.queries[0]!.value,
    'new UiSelector().description("cart").childSelector(new UiSelector().textMatches("\\\\d+ items"))',
  );
});

const RN_LOGIN = "/work/shared/corpus/android/uiautomator_wdio_demo_reactnative_login.xml";

Deno.test("resolveTarget() takes the nth match of a repeated id and matches textRegex whole, on a real screen", async () => {
  const finder = new ScreenFinder(parseHierarchy(await Deno.readTextFile(RN_LOGIN)));
  const byIndex = await resolveTarget(
    finder,
    androidCascade({ id: "RNE__Input__text-input", index: 1 }, "strict"),
  );
  assertEquals(byIndex.element?.text, "Password");
  const ambiguous = await resolveTarget(
    finder,
    androidCascade({ id: "RNE__Input__text-input" }, "strict"),
  );
  assertEquals(ambiguous.element, undefined);
  assertEquals(ambiguous.tried[0]!.matches, 2);
  const byRegex = await resolveTarget(finder, androidCascade({ textRegex: "E.ail" }, "strict"));
  assertEquals(byRegex.element?.text, "Email");
  const partial = await resolveTarget(finder, androidCascade({ textRegex: "mai" }, "strict"));
  assertEquals(partial.element, undefined);
});

Deno.test("resolveTarget() filters a pattern level by the matches' text", async () => {
  const box = { x: 0, y: 0, w: 10, h: 10 };
  const el = (text: string) => ({ bounds: box, visible: true, enabled: true, text });
  const finder = { find: () => Promise.resolve([el("Cart (3)"), el("Cart"), el("My Cart (3)")]) };
  const res = await resolveTarget(finder, webCascade({ textRegex: "Cart \\(\\d+\\)" }, "strict"));
  assertEquals(res.element?.text, "Cart (3)");
});

Deno.test("androidCascade() plans a type under a parent (class + childOf) as a scoped class lookup", () => {
  const levels = androidCascade({
    className: "android.widget.EditText",
    within: { id: "com.app:id/login_form" },
  }, "strict");
  assertEquals(levels.map((l) => [l.strategy, l.queries[0]!.value]), [[
    "class_index",
    'new UiSelector().resourceId("com.app:id/login_form").childSelector(new UiSelector().className("android.widget.EditText"))',
  ]]);
  assertEquals(androidCascade({ className: "android.widget.EditText" }, "adaptive"), []);
});

/** The corpus login with a "Name" field added above Email, sharing the fields' resource id. */
function loginWithName(xml: string): string {
  const email = /<node index="1" text="Email"[^>]*\/>/.exec(xml)![0];
  const name = email.replace('text="Email"', 'text="Name"')
    .replace('content-desc="input-email"', 'content-desc="input-name"')
    .replace('hint="Email"', 'hint="Name"')
    .replace('bounds="[180,793][1000,913]"', 'bounds="[180,640][1000,760]"');
  return xml.replace(email, `${name}${email}`);
}

Deno.test("androidCascade() follows a trail's selector order; an index qualifies only its own selector", () => {
  const levels = androidCascade({
    contentDescription: "input-email",
    id: "RNE__Input__text-input",
    testId: "RNE__Input__text-input",
    index: 0,
    point: { x: 590, y: 853 },
    alternatives: [
      { contentDescription: "input-email" },
      { id: "RNE__Input__text-input", index: 0 },
      { testId: "RNE__Input__text-input", index: 0 },
    ],
  });
  assertEquals(levels.map((l) => [l.strategy, l.selector, l.nth]), [
    ["content_description", "~input-email", undefined],
    ["id", "id=RNE__Input__text-input[0]", 0],
    ["coordinates", "xy=590,853", undefined],
  ]);
  assertEquals(androidCascade({ testId: "tag" }, "strict")[0]!.queries, [
    { using: "id", value: "tag" },
  ]);
});

Deno.test("resolveTarget() on Android takes the trail's unique selector before an indexed id when a field is added above", async () => {
  const finder = new ScreenFinder(parseHierarchy(loginWithName(await Deno.readTextFile(RN_LOGIN))));
  const target = {
    contentDescription: "input-email",
    id: "RNE__Input__text-input",
    index: 0,
    alternatives: [{ contentDescription: "input-email" }, {
      id: "RNE__Input__text-input",
      index: 0,
    }],
  };
  const res = await resolveTarget(finder, androidCascade(target, "flexible"));
  assertEquals([res.element?.text, res.level?.selector, res.healed], [
    "Email",
    "~input-email",
    false,
  ]);
  // Without its content description the indexed id is the fallback: healed, and it says so.
  const healed = await resolveTarget(
    finder,
    androidCascade({
      ...target,
      alternatives: [{ contentDescription: "gone" }, target.alternatives[1]!],
    }, "flexible"),
  );
  assertEquals([healed.element?.text, healed.level?.selector, healed.healed], [
    "Name",
    "id=RNE__Input__text-input[0]",
    true,
  ]);
});

Deno.test("resolveTarget() names a selector the finder cannot read as invalid, not as 0 matches", async () => {
  const finder = new ScreenFinder(parseHierarchy(await Deno.readTextFile(RN_LOGIN)));
  const res = await resolveTarget(finder, androidCascade({ textRegex: "Email (" }, "strict"));
  assertEquals(res.element, undefined);
  assertEquals(res.tried[0]!.matches, 0);
  assertEquals(typeof res.tried[0]!.invalid, "string");
  assertEquals(describeTried(res.tried).startsWith("text=/Email (/ → invalid selector ("), true);
  const found = await resolveTarget(finder, androidCascade({ textRegex: "E.ail" }, "strict"));
  assertEquals([found.tried[0]!.invalid, describeTried(found.tried)], [
    undefined,
    "text=/E.ail/ → 1",
  ]);
});

Deno.test("webCascade() follows a trail's selector order; an index and childOf qualify only their own selector", () => {
  const levels = webCascade({
    ariaLabel: "Email",
    testId: "field",
    id: "email",
    index: 0,
    within: { testId: "form" },
    point: { x: 5, y: 6 },
    alternatives: [
      { ariaLabel: "Email" },
      { testId: "field", index: 0 },
      { id: "email", within: { testId: "form" } },
      { ariaLabel: "Email" }, // planned already: not repeated
      { role: "textbox", index: 1 },
    ],
  });
  assertEquals(levels.map((l) => [l.strategy, l.selector, l.nth]), [
    ["aria_label", '[aria-label="Email"]', undefined],
    ["test_id", '[data-testid="field"] >> nth=0', 0],
    ["id", '[data-testid="form"] >> #email', undefined],
    ["role_name", "role=textbox >> nth=1", 1],
    ["coordinates", "xy=5,6", undefined],
  ]);
  assertEquals(levels[3]!.queries, [{ using: "aria", value: "textbox|" }]);
  // Strict keeps the trail's first selector only.
  const strict = webCascade({
    testId: "field",
    ariaLabel: "Email",
    alternatives: [{ ariaLabel: "Email" }, { testId: "field", index: 0 }],
  }, "strict");
  assertEquals(strict.map((l) => l.selector), ['[aria-label="Email"]']);
  // One selector keeps 003's order, its index on every level it qualifies; a role alone is no level.
  assertEquals(
    webCascade({ text: "Go", ariaLabel: "Go", cssPath: "p > a", index: 1 }).map((l) => l.selector),
    ['[aria-label="Go"] >> nth=1', "text=Go >> nth=1", "p > a"],
  );
  assertEquals(webCascade({ role: "button" }), []);
});

Deno.test("resolveTarget() takes an index only when there are that many matches, else goes on to the next level", async () => {
  const box = { x: 0, y: 0, w: 10, h: 10 };
  const el = (text: string) => ({ bounds: box, visible: true, enabled: true, text });
  const finder = {
    find: (q: { using: string; value: string }) =>
      Promise.resolve(
        q.value.includes("field") ? [el("Email")] : q.value.includes("go") ? [el("Go")] : [],
      ),
  };
  const levels = webCascade({
    alternatives: [{ testId: "field", index: 1 }, { testId: "go" }],
  }, "flexible");
  const res = await resolveTarget(finder, levels);
  assertEquals([res.element?.text, res.level?.selector, res.healed], [
    "Go",
    '[data-testid="go"]',
    true,
  ]);
  assertEquals(res.tried[0], {
    strategy: "test_id",
    selector: '[data-testid="field"] >> nth=1',
    matches: 1,
    refused: "index 1 needs 2 matches",
  });
  assertEquals(
    describeTried(res.tried),
    '[data-testid="field"] >> nth=1 → 1 (index 1 needs 2 matches); [data-testid="go"] → 1',
  );
  // Index 0 of a single match is that match.
  const first = await resolveTarget(finder, webCascade({ testId: "field", index: 0 }, "strict"));
  assertEquals(first.element?.text, "Email");
});

Deno.test("resolveTarget() on Android does not take the one match there is for an index past it, on a real screen", async () => {
  const finder = new ScreenFinder(parseHierarchy(await Deno.readTextFile(RN_LOGIN)));
  // One content description "input-email" on screen: index 1 names an element that is not there.
  const res = await resolveTarget(
    finder,
    androidCascade({ contentDescription: "input-email", index: 1 }, "flexible"),
  );
  assertEquals(res.element, undefined);
  assertEquals(describeTried(res.tried), "~input-email[1] → 1 (index 1 needs 2 matches)");
  const past = await resolveTarget(
    finder,
    androidCascade({ id: "RNE__Input__text-input", index: 2 }, "flexible"),
  );
  assertEquals([past.element, past.tried[0]!.matches], [undefined, 2]);
});

Deno.test("resolveTarget() with confirm checks the winner against later identity levels only as far as needed", async () => {
  const box = (x: number) => ({ bounds: { x, y: 0, w: 50, h: 20 }, visible: true, enabled: true });
  const add = { ...box(0), handle: "body > button:nth-of-type(1)" };
  const label = { ...box(5), bounds: { x: 5, y: 2, w: 30, h: 16 }, handle: `${add.handle} > span` };
  const remove = { ...box(100), handle: "body > button:nth-of-type(2)" };
  const levels = webCascade({
    alternatives: [
      { testId: "add" },
      { className: "btn", index: 0 }, // positional: no witness
      { ariaLabel: "Add" },
      { role: "button", name: "Add" },
      { text: "Add" },
    ],
  }, "flexible");
  const run = async (answers: Record<string, unknown[]>) => {
    const asked: string[] = [];
    const res = await resolveTarget(
      {
        find: (q) => {
          asked.push(q.value);
          const key = Object.keys(answers).find((k) => q.value.includes(k));
          return Promise.resolve((key ? answers[key] : []) as typeof add[]);
        },
      },
      levels,
      { confirm: true },
    );
    return { res, asked };
  };
  // the aria-label agrees: role + name and text are never looked up
  const agreed = await run({ '"add"': [add], "btn": [remove], '"Add"': [add] });
  assertEquals([agreed.res.element, agreed.res.position, agreed.res.ambiguous], [
    add,
    0,
    undefined,
  ]);
  assertEquals(agreed.asked, ['[data-testid="add"]', '[aria-label="Add"]']);
  // no aria-label any more: the role + name settles it; a label inside the button agrees
  const nested = await run({ '"add"': [add], "Add|": [], "button|Add": [label] });
  assertEquals([nested.res.element, nested.res.ambiguous], [add, undefined]);
  // the aria-label picks another element: ambiguous, no element
  const other = await run({ '"add"': [add], '[aria-label="Add"]': [remove] });
  assertEquals(other.res.element, undefined);
  assertEquals(
    [other.res.ambiguous?.level.selector, other.res.ambiguous?.other.selector],
    ['[data-testid="add"]', '[aria-label="Add"]'],
  );
  // two matches are no witness: the next level decides
  const many = await run({
    '"add"': [add],
    '[aria-label="Add"]': [add, remove],
    "button|Add": [add],
  });
  assertEquals([many.res.element, many.res.ambiguous], [add, undefined]);
});
