import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { renderSnapshot } from "../../../engine/screens/snapshot.ts";
import { diffSnapshots, formatSnapshotDiff } from "../../../engine/screens/snapshot_diff.ts";
import { makeNode, walk } from "../../../engine/screens/ui_node.ts";

const FILE = new URL(
  "../../../../shared/corpus/android/uiautomator_settings_display_over_apps_detail_switch.xml",
  import.meta.url,
);

Deno.test("diffSnapshots() says unchanged for two captures of the same screen", () => {
  const text = Deno.readTextFileSync(FILE);
  const d = diffSnapshots(
    renderSnapshot(parseHierarchy(text)),
    renderSnapshot(parseHierarchy(text)),
  );
  assertEquals(d, { unchanged: true, added: [], removed: [], changed: [] });
  assertEquals(formatSnapshotDiff(d), "unchanged\n");
});

Deno.test("diffSnapshots() reports a toggled switch as changed, a toast as added, a gone line as removed", () => {
  const text = Deno.readTextFileSync(FILE);
  const before = parseHierarchy(text);
  const after = parseHierarchy(text);
  for (const [n] of walk(after.root)) if (n.checkable) n.checked = true;
  const removed = [...walk(after.root)].find(([n]) => n.text === "1.0.0")![0];
  for (const [n] of walk(after.root)) {
    n.children = n.children.filter((c) => c !== removed);
  }
  after.root.children[0]!.children.push(makeNode({
    className: "android.widget.Toast",
    text: "Permission granted",
    bounds: { x: 100, y: 2000, w: 880, h: 120 },
  }));
  const d = diffSnapshots(renderSnapshot(before), renderSnapshot(after));
  assert(!d.unchanged);
  assertEquals(d.changed.length, 1);
  assertStringIncludes(d.changed[0]!.before, "[checked=false]");
  assertStringIncludes(d.changed[0]!.after, "[checked]");
  assertEquals(d.added.map((l) => l.trim().replace(/ \[ref=.*/, "")), [
    '- Toast "Permission granted"',
  ]);
  assertEquals(d.removed.map((l) => l.trim().replace(/ \[ref=.*/, "")), ['- TextView "1.0.0"']);
  const out = formatSnapshotDiff(d);
  assertStringIncludes(out, '+ Toast "Permission granted"');
  assertStringIncludes(out, '~ View "Allow display over other apps" [clickable] [checked]');
  assertStringIncludes(
    out,
    '  was: View "Allow display over other apps" [clickable] [checked=false]',
  );
});

Deno.test("diffSnapshots() matches lines without refs by text", () => {
  const d = diffSnapshots('- a [ref=a1]\n- text "Hi"\n', '- a [ref=a1]\n- text "Bye"\n');
  assertEquals(d.added, ['- text "Bye"']);
  assertEquals(d.removed, ['- text "Hi"']);
});

Deno.test("diffSnapshots() compares the (N offscreen) count as a number, not as an element", () => {
  const d = diffSnapshots("- a [ref=a1]\n(2 offscreen)\n", "- a [ref=a1]\n(3 offscreen)\n");
  assertEquals([d.added, d.removed, d.offscreen], [[], [], { before: 2, after: 3 }]);
  assertEquals(formatSnapshotDiff(d), "(3 offscreen, was 2)\n");
  assertEquals(diffSnapshots("- a [ref=a1]\n(2 offscreen)\n", "- b [ref=b1]\n").removed, [
    "- a [ref=a1]",
  ]);
});
