/**
 * Natural-language analysis of steps: slot names for the values a step mentions, and the
 * relations (sums, differences, products, interpolations) a step states between values.
 *
 * @example
 * ```ts
 * import { HeuristicSlotAnalyzer, statedRelations } from "./mod.ts";
 * if (statedRelations("Verify the result is 4 times the subtotal").factors[0]?.amount !== 4) {
 *   throw new Error();
 * }
 * const analysis = await new HeuristicSlotAnalyzer().analyze([
 *   "Note how many apples are in the cart",
 *   "Add 2 more apples",
 *   "Verify apple count increased by 2",
 * ]);
 * if (analysis.relationships[0]?.expression !== "{{appleCount + 2}}") throw new Error();
 * ```
 *
 * @module
 */
export * from "./naming.ts";
export * from "./nl_relations.ts";
export * from "./slot_analysis.ts";
