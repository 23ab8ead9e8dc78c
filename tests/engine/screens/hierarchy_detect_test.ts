import {
  assert,
  assertEquals,
  assertStringIncludes,
  assertThrows,
} from "../../_fixtures/assert.ts";
import { detectHierarchyFormat } from "../../../engine/formats/detect_hierarchy.ts";
import { detectFormat, parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { walk } from "../../../engine/screens/ui_node.ts";

const FORMATS = new URL("../../testdata/formats/", import.meta.url);

/**
 * Every `ax_snapshot` of the recording_v1 samples in tests/testdata/formats (vw-ax-*.json) that
 * declares `axtree_v1` (the human sample also holds a cairn.chrome/v1 snapshot).
 */
function sampleSnapshots(): { file: string; snapshot: Record<string, unknown> }[] {
  const out: { file: string; snapshot: Record<string, unknown> }[] = [];
  const files = [...Deno.readDirSync(FORMATS)].map((e) => e.name)
    .filter((n) => /^vw-ax-.*\.json$/.test(n)).sort();
  for (const file of files) {
    const rec = JSON.parse(Deno.readTextFileSync(new URL(file, FORMATS)));
    for (const entry of rec.timeline ?? []) {
      if (entry.kind !== "ax_snapshot" || entry.snapshot?.schema_version !== "axtree_v1") continue;
      out.push({ file, snapshot: entry.snapshot });
    }
  }
  return out;
}

Deno.test("detectFormat() recognises every axtree_v1 snapshot of the vw-ax samples", () => {
  const samples = sampleSnapshots();
  assert(samples.length >= 2, `expected AX snapshots in the samples, got ${samples.length}`);
  for (const { file, snapshot } of samples) {
    const text = JSON.stringify(snapshot, null, 2);
    assertEquals(detectFormat(text), "axtree_v1", file);
    assertEquals(detectHierarchyFormat(text), "axtree_v1", file);
    assertEquals(detectHierarchyFormat(snapshot), "axtree_v1", file);
    const screen = parseHierarchy(text);
    assertEquals(screen.format, "axtree_v1", file);
    // Auto-detected parsing reaches the AX parser: the tree is built of the snapshot's nodes.
    const ids = new Set((snapshot.nodes as { node_id: string }[]).map((n) => String(n.node_id)));
    const seen = [...walk(screen.root)].map(([n]) => n.attrs?.axNodeId);
    assert(seen.length >= 2, `${file}: only ${seen.length} nodes parsed`);
    for (const id of seen) assert(id !== undefined && ids.has(id), `${file}: node ${id}`);
  }
});

Deno.test("detectFormat() recognises CDP's raw getFullAXTree and node_id lists without a version", () => {
  const cdp = {
    nodes: [{ nodeId: "1", role: { value: "RootWebArea" }, name: { value: "Home" } }],
  };
  assertEquals(detectFormat(JSON.stringify(cdp)), "axtree_v1");
  assertEquals(detectFormat('{"nodes":[{"node_id":"1","role":"button"}]}'), "axtree_v1");
});

Deno.test("detectFormat() still rejects JSON that only looks like a node list", () => {
  const err = assertThrows(() => detectFormat('{"nodes":[]}'), SyntaxError);
  assertStringIncludes(err.message, "axtree_v1");
  assertThrows(() => detectFormat('{"nodes":[{"id":"1"}]}'), SyntaxError);
  assertEquals(detectHierarchyFormat('{"schema_version":"recording_v1","timeline":[]}'), undefined);
  // The Cairn Chrome hierarchy is still told apart.
  assertEquals(detectFormat('{"schema_version":"cairn.chrome/v1","root":{}}'), "chrome");
});
