/**
 * The optimizer on captures over real screens it has no golden for (corpus dumps of Calculator,
 * Tasks, a React Native login, …, edited only in their text): expressions the NL and the
 * arithmetic support, interpolation of values read earlier, dates and money of many shapes,
 * slot names from the NL, the assertion's carrier, and the substitution guards.
 */
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { buildCapture, type ScriptAction } from "../../_fixtures/optimizer_support.ts";
import { parseAndroid } from "../../../engine/screens/parse_android.ts";
import { optimize, type OptimizeResult } from "../../../engine/optimizer/optimize.ts";
import type { TrailAction } from "../../../engine/trail/trail.ts";
import type { Screen } from "../../../engine/screens/ui_node.ts";

const CORPUS = new URL("../../../../shared/corpus/android/", import.meta.url);
const xml = (name: string) => Deno.readTextFileSync(new URL(name, CORPUS));
const CALC = xml("uiautomator_google_calculator.xml");

/** The Calculator screen with its formula and result showing the given texts. */
function calculator(formula: string, result: string): Screen {
  return parseAndroid(
    CALC
      .replace(
        /text="" (resource-id="com\.google\.android\.calculator:id\/formula")/,
        (_, id) => `text="${formula}" ${id}`,
      )
      .replace(
        /text="" (resource-id="com\.google\.android\.calculator:id\/result")/,
        (_, id) => `text="${result}" ${id}`,
      )
      .replace(/content-desc="No formula"/, 'content-desc=""')
      .replace(/content-desc="No result"/, 'content-desc=""'),
  );
}
const RESULT = { x: 700, y: 770 };
const FORMULA = { x: 700, y: 450 };

function run(actions: ScriptAction[], start: { memory?: Record<string, string> } = {}) {
  const c = buildCapture("android", actions, start);
  // heuristics v3 (the default) holds these fixes; v1 and v2 write what they always wrote
  return optimize(c.events, c.screens);
}

function action(r: OptimizeResult, step: number, index = 0): TrailAction {
  const a = r.trail.trail[step]?.recording?.[index];
  assert(a, `no action ${index} in step ${step}: ${JSON.stringify(r.trail.trail[step])}`);
  return a;
}

function lines(r: OptimizeResult, action: number): string[] {
  return r.explain.find((e) => e.action === action)?.lines ?? [];
}

Deno.test("optimize() writes a product the NL states ('4 times the subtotal') over a value read earlier", () => {
  const r = run([
    {
      step: "Note the subtotal",
      screen: calculator("5+3", "8"),
      kind: "readText",
      point: RESULT,
      value: "8",
    },
    {
      step: "Verify the result is 4 times the subtotal",
      screen: calculator("8×4", "32"),
      kind: "assertText",
      point: RESULT,
      expected: "32",
    },
  ]);
  assertEquals(action(r, 0).storeAs, "subtotal");
  assertEquals(action(r, 1).equals, "{{subtotal * 4}}");
  assert(
    lines(r, 2).some((l) => l.includes('→ {{subtotal * 4}} (NL "4 times"')),
    lines(r, 2).join("\n"),
  );
});

Deno.test("optimize() says truly why a stated relation was kept exact", () => {
  const r = run([
    {
      step: "Note the subtotal",
      screen: calculator("5+3", "8"),
      kind: "readText",
      point: RESULT,
      value: "8",
    },
    {
      step: "Verify the result is 4 times the subtotal",
      screen: calculator("8×5", "40"),
      kind: "assertText",
      point: RESULT,
      expected: "40",
    },
  ]);
  assertEquals(action(r, 1).equals, "40");
  const why = lines(r, 2).at(-1)!;
  assert(why.includes('"4 times"') && why.includes("subtotal = 8") && why.includes('"40"'), why);
  assert(!why.includes("no captured value supports it"), why);
});

Deno.test("optimize() interpolates a value read earlier inside a longer text when the step refers to it", () => {
  const r = run([
    {
      step: "Note the result",
      screen: calculator("5+3", "8"),
      kind: "readText",
      point: RESULT,
      value: "8",
      storeAs: "subtotal",
    },
    {
      step: "Verify the formula shows the noted result times 4",
      screen: calculator("8×4", "32"),
      kind: "assertText",
      point: FORMULA,
      expected: "8×4",
    },
  ]);
  assertEquals(action(r, 1).equals, "{{subtotal}}×4");
  // no reference to an earlier value: the text stays as seen
  const plain = run([
    {
      step: "Note the result",
      screen: calculator("5+3", "8"),
      kind: "readText",
      point: RESULT,
      value: "8",
      storeAs: "subtotal",
    },
    {
      step: "Verify the formula shows 8×4",
      screen: calculator("8×4", "32"),
      kind: "assertText",
      point: FORMULA,
      expected: "8×4",
    },
  ]);
  assertEquals(action(plain, 1).equals, "8×4");
});

const FORMS = parseAndroid(xml("uiautomator_wdio_demo_reactnative_forms.xml"));
/** The "Type something" field of the React Native forms screen (id `RNE__Input__text-input`). */
const FIELD = { x: 540, y: 738 };

Deno.test("optimize() computes with a typed amount and a balance from memory, money format kept", () => {
  const r = run([
    {
      step: "Enter the amount",
      screen: FORMS,
      kind: "inputText",
      point: FIELD,
      text: "$20.00",
    },
    {
      step: "Verify the new balance is the old balance decreased by the amount",
      screen: calculator("", "$100.00"),
      kind: "assertText",
      point: RESULT,
      expected: "$100.00",
    },
  ], { memory: { balance: "$120.00" } });
  assertEquals(action(r, 0).text, "{{amount}}");
  assertEquals(action(r, 1).equals, "{{balance - amount}}");
  assertEquals(r.trail.config.memory?.balance, "$120.00");
});

for (
  const [step, before, after, expr] of [
    ["Verify the result is half the subtotal", "$25.00", "$12.50", "subtotal / 2"],
    ["Verify the tip is 15 percent of the subtotal", "$80.00", "$12.00", "subtotal * 15 / 100"],
    ["Verify the price after 20% off", "$80.00", "$64.00", "subtotal - subtotal * 20 / 100"],
    ["Verify the result went up by 3", "8", "11", "subtotal + 3"],
    ["Verify the result is the subtotal times 3", "1,200", "3,600", "subtotal * 3"],
  ] as const
) {
  Deno.test(`optimize() writes {{${expr}}} for "${step}"`, () => {
    const r = run([
      {
        step: "Note the subtotal",
        screen: calculator("", before),
        kind: "readText",
        point: RESULT,
        value: before,
      },
      { step, screen: calculator("", after), kind: "assertText", point: RESULT, expected: after },
    ]);
    assertEquals(action(r, 1).equals, `{{${expr}}}`);
  });
}

Deno.test("optimize() writes a sum and a difference of two values read earlier", () => {
  const steps = (assertStep: string, shown: string) =>
    run([
      {
        step: "Note the first",
        screen: calculator("", "7"),
        kind: "readText",
        point: RESULT,
        value: "7",
        storeAs: "first",
      },
      {
        step: "Note the second",
        screen: calculator("", "12"),
        kind: "readText",
        point: RESULT,
        value: "12",
        storeAs: "second",
      },
      {
        step: assertStep,
        screen: calculator("", shown),
        kind: "assertText",
        point: RESULT,
        expected: shown,
      },
    ]);
  assertEquals(
    action(steps("Verify the result is the sum of both", "19"), 2).equals,
    "{{first + second}}",
  );
  assertEquals(
    action(steps("Verify the result is the difference of the second and the first", "5"), 2).equals,
    "{{second - first}}",
  );
  // a relation no arithmetic supports invents nothing
  assertEquals(action(steps("Verify the result is the sum of both", "20"), 2).equals, "20");
});

Deno.test("optimize() names slots from the NL step, not from a generic field or the element's id", () => {
  const r = run([
    { step: "Search for Fern", screen: FORMS, kind: "inputText", point: FIELD, text: "Fern" },
    {
      step: "Note the subtotal",
      screen: calculator("5+3", "8"),
      kind: "readText",
      point: RESULT,
      value: "8",
    },
  ]);
  assertEquals(action(r, 0).text, "{{searchTerm}}");
  assertEquals(action(r, 1).storeAs, "subtotal");
  assertEquals(r.trail.config.memory?.searchTerm, "Fern");
  // v1 kept the field's and the element's names
  const c = buildCapture("android", [
    { step: "Search for Fern", screen: FORMS, kind: "inputText", point: FIELD, text: "Fern" },
    {
      step: "Note the subtotal",
      screen: calculator("5+3", "8"),
      kind: "readText",
      point: RESULT,
      value: "8",
    },
  ]);
  const v1 = optimize(c.events, c.screens, { heuristics: "v1" });
  assertEquals(v1.trail.trail[1]?.recording?.[0]?.storeAs, "result");
});

Deno.test("optimize() applies 001's 8-character guard to the header memory as to any source but a provisioning tool", () => {
  const typed = run([
    { step: "Answer yes", screen: FORMS, kind: "inputText", point: FIELD, text: "yes" },
  ], { memory: { optIn: "yes" } });
  assert(action(typed, 0).text !== "{{optIn}}", JSON.stringify(action(typed, 0)));
  assert(lines(typed, 1).some((l) => l.startsWith("not substituted: optIn: value shorter than 8")));
  const asserted = run([
    {
      step: "Verify the answer",
      screen: calculator("", "yes"),
      kind: "assertText",
      point: RESULT,
      expected: "yes",
    },
  ], { memory: { optIn: "yes" } });
  assertEquals(action(asserted, 0).equals, "yes");
  // a provisioning tool's short value is trusted, as 001 says
  const provisioned = run([
    {
      step: "Verify the store code",
      screen: calculator("", "4821"),
      kind: "assertText",
      point: RESULT,
      expected: "4821",
      memory: { merchant_store_code: "4821" },
      writtenBy: { merchant_store_code: "merchantFactory_loadAccount" },
    },
  ]);
  assertEquals(action(provisioned, 0).equals, "{{merchant_store_code}}");
});

Deno.test("optimize() puts a memory value inside a longer text only when the step asks for it", () => {
  const email = "trailblaze+merchant@example.com";
  const banner = calculator(`Signed in as ${email}`, "");
  const script = (step: string): ScriptAction[] => [
    {
      step: "Load the merchant",
      screen: banner,
      kind: "tap",
      point: RESULT,
      memory: { merchant_email: email },
      writtenBy: { merchant_email: "merchantFactory_loadAccount" },
    },
    { step, screen: banner, kind: "assertText", point: FORMULA, expected: `Signed in as ${email}` },
  ];
  const silent = run(script("Verify the banner"));
  assertEquals(action(silent, 1).equals, `Signed in as ${email}`);
  assert(
    lines(silent, 2).some((l) =>
      l.includes("merchant_email: inside a longer text, and the step does not ask")
    ),
    lines(silent, 2).join("\n"),
  );
  const asked = run(script("Verify the banner shows the merchant email"));
  assertEquals(action(asked, 1).equals, "Signed in as {{merchant_email}}");
});

const TASKS = xml("uiautomator_google_tasks_list.xml");
/** The Google Tasks list with its date chip showing `date`. */
function tasks(date: string): Screen {
  return parseAndroid(TASKS.replace('text="Mon, Sep 23"', `text="${date}"`));
}

function chipPoint(screen: Screen): { x: number; y: number } {
  const find = (n: Screen["root"]): Screen["root"] | undefined =>
    n.text === "Mon, Sep 23" ? n : n.children.map(find).find((x) => x !== undefined);
  const chip = find(screen.root)!;
  return { x: chip.bounds.x + chip.bounds.w / 2, y: chip.bounds.y + chip.bounds.h / 2 };
}

Deno.test("optimize() writes a weekday-first date as any date of that shape, and keeps it when the step says exactly", () => {
  const screen = tasks("Mon, Sep 23");
  const at = chipPoint(screen);
  const any = run([
    {
      step: "Verify a date appears",
      screen,
      kind: "assertText",
      point: at,
      expected: "Mon, Sep 23",
    },
  ]);
  const pattern = action(any, 0).matches!;
  assert(pattern !== undefined, JSON.stringify(action(any, 0)));
  for (const other of ["Tue, Oct 1", "Sun, Dec 31", "Monday, September 23"]) {
    assert(new RegExp(`^(?:${pattern})$`).test(other), `${pattern} refuses ${other}`);
  }
  assert(!new RegExp(`^(?:${pattern})$`).test("Task 18"));
  assert(lines(any, 1).some((l) => l.includes("matches date pattern")), lines(any, 1).join("\n"));
  const exact = run([
    {
      step: "Verify the date is exactly Mon, Sep 23",
      screen,
      kind: "assertText",
      point: at,
      expected: "Mon, Sep 23",
    },
  ]);
  assertEquals(action(exact, 0).equals, "Mon, Sep 23");
});

for (
  const [noun, shown, other] of [
    ["date", "23 Sep", "4 Mar"],
    ["date", "23.09.2024", "01.12.2025"],
    ["date", "2024-09-23T10:00:00Z", "2026-01-02T23:59:59Z"],
    ["time", "2 days ago", "yesterday"],
    ["time", "3:17 PM", "11:05 am"],
    ["time", "15:04", "9:30"],
    ["price", "€12,50", "€1.299,00"],
    ["price", "12,50 €", "7 €"],
    ["price", "USD 12.00", "USD 1,250.50"],
    ["price", "₹1,234", "₹99"],
    ["distance", "5.2 km", "12 km"],
    ["count", "3 new messages", "1 new message"],
  ] as const
) {
  Deno.test(`optimize() generalizes the ${noun} ${JSON.stringify(shown)} on a real screen to its shape`, () => {
    const screen = tasks(shown);
    const at = chipPoint(tasks("Mon, Sep 23"));
    const r = run([
      { step: `Verify a ${noun} is shown`, screen, kind: "assertText", point: at, expected: shown },
    ]);
    const pattern = action(r, 0).matches;
    assert(pattern !== undefined, `${JSON.stringify(action(r, 0))}\n${lines(r, 1).join("\n")}`);
    const re = new RegExp(`^(?:${pattern})$`);
    assert(re.test(shown) && re.test(other), `${pattern} vs ${shown} / ${other}`);
  });
}

Deno.test("optimize() asserts the label the point hit inside a tab, never a pane whose description merely contains it", () => {
  const screen = parseAndroid(xml("uiautomator_wdio_demo_reactnative_login.xml"));
  const r = run([
    {
      step: "Verify the Login tab label",
      screen,
      kind: "assertText",
      point: { x: 400, y: 590 },
      expected: "Login",
    },
  ]);
  const a = action(r, 0);
  const lead = a.selector ?? a.selectors?.[0];
  assertEquals(a.kind, "assertText");
  assertEquals(a.equals, "Login");
  assertEquals(lead, {
    className: "android.widget.TextView",
    childOf: { contentDescription: "button-login-container" },
  });
  assert(!JSON.stringify(a).includes("Login-screen"), JSON.stringify(a));
});
