import { assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import {
  evaluateExpression,
  evaluateTemplate,
  parseDisplayNumber,
  templateVariables,
} from "../../../engine/trail/template.ts";

const MEMORY = {
  inventoryCount: "5",
  price: "$25.00",
  quantity: "2",
  big: "1,200",
  firstName: "Alice",
  items: "3 items",
  euro: "€3.50",
  secret: null,
};

const CASES: [string, string | number | boolean][] = [
  ["inventoryCount + 2", 7],
  ["inventoryCount - 2", 3],
  ["(inventoryCount + 1) * 2", 12],
  ["inventoryCount + 1 * 2", 7],
  ["10 % 4", 2],
  ["7 / 2", 3.5],
  ["0.1 + 0.2", "0.3"],
  ["2.50 + 1", "3.50"],
  ["-inventoryCount + 1", -4],
  ["price * quantity", "$50.00"],
  ["$25.00 * 2", "$50.00"],
  ["2 * price", "$50.00"],
  ["1,200 + 5", "1,205"],
  ["big * 1000", "1,200,000"],
  ["items + 1", "4 items"],
  ["euro * 3", "€10.50"],
  ["price - 30", "-$5.00"],
  ["'Hello ' + firstName", "Hello Alice"],
  ['"a" + "b"', "ab"],
  ["inventoryCount + 2 == 7", true],
  ["price > 20", true],
  ["firstName != 'Bob' && inventoryCount >= 5", true],
  ["inventoryCount < 5 || false", false],
  ["!true", false],
  ["firstName", "Alice"],
];

for (const [expr, expected] of CASES) {
  Deno.test(`evaluateExpression() gives ${JSON.stringify(expected)} for ${expr}`, () => {
    assertEquals(evaluateExpression(expr, MEMORY), expected);
  });
}

Deno.test("evaluateTemplate() interpolates expressions and ${name} into text", () => {
  assertEquals(evaluateTemplate("Hello {{firstName}}!", MEMORY), "Hello Alice!");
  assertEquals(evaluateTemplate("{{inventoryCount + 2}}", MEMORY), "7");
  assertEquals(
    evaluateTemplate("Total {{price * quantity}} for ${quantity}", MEMORY),
    "Total $50.00 for 2",
  );
  assertEquals(evaluateTemplate("no placeholders", MEMORY), "no placeholders");
});

Deno.test("evaluateExpression() throws a SyntaxError naming the column", () => {
  assertThrows(() => evaluateExpression("a + * 2", { a: "1" }), SyntaxError, "column 5");
  assertThrows(
    () => evaluateExpression("(a + 2", { a: "1" }),
    SyntaxError,
    "end of expression at column 7",
  );
  assertThrows(
    () => evaluateExpression("a # 2", { a: "1" }),
    SyntaxError,
    'Unexpected character "#" at column 3',
  );
  assertThrows(
    () => evaluateExpression("'abc", {}),
    SyntaxError,
    "Unterminated string at column 1",
  );
});

Deno.test("evaluateTemplate() names the column within the template", () => {
  assertThrows(() => evaluateTemplate("Hi {{a +}}", { a: "1" }), SyntaxError, "column 9");
  assertThrows(() => evaluateTemplate("Hi {{a", { a: "1" }), SyntaxError, "column 4");
});

Deno.test("evaluateExpression() rejects unknown variables, empty slots and bad arithmetic", () => {
  assertThrows(
    () => evaluateExpression("nope + 1", MEMORY),
    ReferenceError,
    'Unknown variable "nope"',
  );
  assertThrows(() => evaluateExpression("secret", MEMORY), ReferenceError, "has no value");
  assertThrows(() => evaluateExpression("firstName * 2", MEMORY), TypeError, "needs numbers");
  assertThrows(() => evaluateExpression("1 / 0", MEMORY), RangeError, "Division by zero");
  assertThrows(() => evaluateExpression("constructor", {}), ReferenceError, "Unknown variable");
});

Deno.test("templateVariables() lists the memory keys a template reads", () => {
  assertEquals(templateVariables("{{price * quantity}} and ${email} {{price}}"), [
    "price",
    "quantity",
    "email",
  ]);
});

Deno.test("evaluateTemplate() computes with amounts as Europe and India write them, each format kept", () => {
  const m = {
    eu: "€12,50",
    after: "12,50 €",
    big: "1.234,56 €",
    spaced: "1 234",
    rupees: "₹1,200",
    francs: "CHF 20.00",
    odd: "€-3,50",
    padded: "01,50 €",
  };
  assertEquals(evaluateTemplate("{{eu * 2}}", m), "€25,00");
  assertEquals(evaluateTemplate("{{after - 2}}", m), "10,50 €");
  assertEquals(evaluateTemplate("{{big * 2}}", m), "2.469,12 €");
  assertEquals(evaluateTemplate("{{spaced + 1000}}", m), "2 234");
  assertEquals(evaluateTemplate("{{rupees / 2}}", m), "₹600");
  assertEquals(evaluateTemplate("{{francs + francs * 10 / 100}}", m), "CHF 22.00");
  assertEquals(evaluateTemplate("{{warm + 3}}", { warm: "49°F" }), "52°F");
  assertEquals(evaluateTemplate("{{cold * 2}}", { cold: "-4 °C" }), "-8 °C");
  // a value is shown as it was read; one its format would write otherwise stays text
  for (const k of Object.keys(m) as (keyof typeof m)[]) {
    assertEquals(evaluateTemplate(`{{${k}}}`, m), m[k]);
  }
  assertEquals(evaluateTemplate("{{padded + 'x'}}", m), "01,50 €x");
  // the optimizer's v1 and v2 read only the shapes they always read
  assertEquals(parseDisplayNumber("12,50 €"), undefined);
  assertEquals(parseDisplayNumber("12,50 €", { intl: true })?.value, 12.5);
  assertEquals(parseDisplayNumber("1,234")?.value, 1234);
  assertEquals(parseDisplayNumber("1.234")?.value, 1.234);
});
