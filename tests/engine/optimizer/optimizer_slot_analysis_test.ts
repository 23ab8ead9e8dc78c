import { assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { HeuristicSlotAnalyzer, slotAnalyzerFromEnv } from "../../../engine/nl/slot_analysis.ts";

Deno.test("HeuristicSlotAnalyzer.analyze() finds 000's appleCount slot and its relationship", async () => {
  const a = await new HeuristicSlotAnalyzer().analyze([
    "Note how many apples are in the cart",
    "Add 2 more apples",
    "Verify apple count increased by 2",
  ]);
  assertEquals(a.slots, [{
    name: "appleCount",
    kind: "captured",
    step: 0,
    description: "the apple count",
  }]);
  assertEquals(a.relationships, [{
    step: 2,
    expression: "{{appleCount + 2}}",
    description: "the apple count increased by 2",
  }]);
  assertEquals(
    a.instructions,
    'You have a memory variable appleCount. When you observe the apple count on screen, call memory.set("appleCount", value) to store it.',
  );
});

Deno.test("HeuristicSlotAnalyzer.analyze() finds input slots, a total and no relation without NL support", async () => {
  const a = await new HeuristicSlotAnalyzer().analyze([
    "Sign in with the test account",
    "Note the current inventory count",
    "Verify inventory is shown",
    "Note the item price",
    "Note the quantity",
    "Verify the total is right",
  ]);
  assertEquals(a.slots.map((s) => [s.name, s.kind]), [
    ["email", "input"],
    ["password", "input"],
    ["inventoryCount", "captured"],
    ["itemPrice", "captured"],
    ["quantity", "captured"],
  ]);
  assertEquals(a.relationships.map((r) => [r.step, r.expression]), [[
    5,
    "{{itemPrice * quantity}}",
  ]]);
  assertStringIncludes(a.instructions, 'memory.set("inventoryCount", value)');
});

Deno.test("slotAnalyzerFromEnv() picks the chat endpoint only when base URL and model are set", () => {
  assertEquals(slotAnalyzerFromEnv({}).name, "heuristic");
  assertEquals(
    slotAnalyzerFromEnv({ CAIRN_SLOTS_BASE_URL: "http://127.0.0.1:1/v1" }).name,
    "heuristic",
  );
  assertEquals(
    slotAnalyzerFromEnv({ CAIRN_SLOTS_BASE_URL: "http://127.0.0.1:1/v1", CAIRN_SLOTS_MODEL: "m" })
      .name,
    "chat:m",
  );
});

Deno.test("HeuristicSlotAnalyzer.analyze() reads the relations the expressions pass reads: N times, half, percent", async () => {
  const a = await new HeuristicSlotAnalyzer().analyze([
    "Note the subtotal",
    "Verify the result is 4 times the subtotal",
    "Verify the deposit is half the subtotal",
    "Verify the tip is 15% of the subtotal",
  ]);
  assertEquals(a.relationships.map((r) => [r.step, r.expression]), [
    [1, "{{subtotal * 4}}"],
    [2, "{{subtotal / 2}}"],
    [3, "{{subtotal * 15 / 100}}"],
  ]);
});
