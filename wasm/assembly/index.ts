// Cairn's WASM hot path over the flat screen table of ../layout.ts. Hot calls take a pointer
// to a table the host wrote once per screen; no string crosses the boundary.
export { hitTest, hitTestBatch } from "./hit_test";
export { hitTestTop } from "./hit_top";
export { refHashes } from "./ref_hash";
export { countBatch, countMatches, firstMatches } from "./select";
export { ancestors, subtreeEnd } from "./subtree";

/** First free byte after the module's static data: the host places tables from here on. */
export function heapBase(): usize {
  return __heap_base;
}
