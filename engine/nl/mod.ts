/**
 * Natural-language analysis of steps: slot names for the values a step mentions, and the relations (sums, differences, products, interpolations) a step states between values.
 *
 * @module
 */
export * from "./naming.ts";
export * from "./nl_relations.ts";
export * from "./slot_analysis.ts";
