/**
 * Registers the `axtree_v1` parser with `engine/hierarchy.ts`, so
 * `parseHierarchy(text, { format: "axtree_v1" })` reads recording_v1 AX snapshots. Imported for
 * its effect by the import path (`engine/formats/import_file.ts`) and the capture projection.
 * `axtree.ts` itself imports nothing of `engine/hierarchy.ts`, so that module may also import
 * `parseAxTree` directly without a cycle.
 *
 * @module
 */
import { registerHierarchyParser } from "../hierarchy.ts";
import { parseAxTree } from "./axtree.ts";
import { parseJson } from "./json_text.ts";

registerHierarchyParser("axtree_v1", (text, json) => parseAxTree(json ?? parseJson(text)));
