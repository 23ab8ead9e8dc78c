/**
 * Android snapshot labels on real corpus page sources: a text field keeps its label and ref
 * while text is typed into it (the value is shown after `:`), and clickable elements are marked
 * and, when unlabelled, named by their content as TalkBack reads them.
 */
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { descendantLabelCandidates } from "../../../engine/optimizer/android_labels.ts";
import { baseRef } from "../../../engine/screens/refs.ts";
import { ScreenTable } from "../../../engine/screens/screen_table.ts";
import { diffSnapshots, formatSnapshotDiff } from "../../../engine/screens/snapshot_diff.ts";
import { resolveRefAction } from "../../../engine/screens/resolve_ref.ts";
import { renderSnapshot } from "../../../engine/screens/snapshot.ts";
import { type SnapshotEntry, snapshotTree } from "../../../engine/screens/snapshot_tree.ts";
import type { Screen } from "../../../engine/screens/ui_node.ts";
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";

const CORPUS = new URL("../../../../shared/corpus/android/", import.meta.url);

function corpus(name: string): string {
  return Deno.readTextFileSync(new URL(name, CORPUS));
}

/** The corpus source with one attribute run replaced (what the device reports after typing). */
function edited(name: string, from: string, to: string): string {
  const text = corpus(name);
  assert(text.split(from).length === 2, `${name}: ${from} is not there exactly once`);
  return text.replace(from, to);
}

function entry(screen: Screen, pick: (e: SnapshotEntry) => boolean): SnapshotEntry {
  const found = snapshotTree(screen).entries.filter(pick);
  assertEquals(found.length, 1, `${found.length} entries match`);
  return found[0]!;
}

function line(screen: Screen, ref: string): string {
  return renderSnapshot(screen).split("\n").find((l) => l.includes(`[ref=${ref}]`))!.trim();
}

const RN_LOGIN = "uiautomator_wdio_demo_reactnative_login.xml";
const EMAIL = 'text="Email" resource-id="RNE__Input__text-input"';
const PASSWORD = 'text="Password" resource-id="RNE__Input__text-input"';

Deno.test("an EditText keeps its label and ref when text is typed into it; the value follows `:`", () => {
  const before = parseHierarchy(corpus(RN_LOGIN));
  const typed = parseHierarchy(
    edited(RN_LOGIN, EMAIL, 'text="bob@example.com" resource-id="RNE__Input__text-input"'),
  );
  const isEmail = (e: SnapshotEntry) => e.node.contentDescription === "input-email";
  const a = entry(before, isEmail), b = entry(typed, isEmail);
  assertEquals(b.ref, a.ref);
  assertEquals(line(before, a.ref), `- EditText "input-email" [hint="Email"] [ref=${a.ref}]`);
  assertEquals(
    line(typed, b.ref),
    `- EditText "input-email" [hint="Email"] [ref=${a.ref}]: bob@example.com`,
  );
  // The node keeps the device's text: selectors and replay lookups match it as before.
  assertEquals(b.node.text, "bob@example.com");
  // `type ref=R` then `assert ref=R` on the next screen finds the same field.
  const t = resolveRefAction(before, { kind: "type", ref: a.ref, text: "bob@example.com" });
  const v = resolveRefAction(typed, { kind: "assertVisible", ref: a.ref });
  assertEquals(v.node.bounds, t.node.bounds);
  // The diff shows one changed line for the field, with the same ref on both sides.
  const diff = formatSnapshotDiff(diffSnapshots(renderSnapshot(before), renderSnapshot(typed)));
  assertStringIncludes(diff, `[ref=${a.ref}]: bob@example.com`);
  assert(!/EditText "bob@example.com"/.test(diff), diff);
});

Deno.test("a password field keeps its ref when typed into and never shows its value", () => {
  const before = parseHierarchy(corpus(RN_LOGIN));
  const typed = parseHierarchy(
    edited(RN_LOGIN, PASSWORD, 'text="••••••••" resource-id="RNE__Input__text-input"'),
  );
  const isPassword = (e: SnapshotEntry) => e.node.contentDescription === "input-password";
  const a = entry(before, isPassword), b = entry(typed, isPassword);
  assertEquals(b.ref, a.ref);
  const shown = `- EditText "input-password" [password] [hint="Password"] [ref=${a.ref}]`;
  assertEquals(line(before, a.ref), shown);
  assertEquals(line(typed, b.ref), shown);
});

Deno.test("a field without a content description is labelled by its hint, and keeps its ref", () => {
  const name = "uiautomator_gmail_inbox.xml";
  const from = 'text="Search in mail" resource-id="com.google.android.gm:id/open_search"';
  const before = parseHierarchy(corpus(name));
  const typed = parseHierarchy(
    edited(name, from, 'text="invoices" resource-id="com.google.android.gm:id/open_search"'),
  );
  const isSearch = (e: SnapshotEntry) =>
    e.node.resourceId === "com.google.android.gm:id/open_search";
  const a = entry(before, isSearch), b = entry(typed, isSearch);
  assertEquals(b.ref, a.ref);
  assert(line(before, a.ref).startsWith(`- EditText "Search in mail" [ref=${a.ref}]`));
  assert(line(typed, a.ref).startsWith(`- EditText "Search in mail" [ref=${a.ref}]`));
  assert(line(typed, a.ref).endsWith(": invoices"), line(typed, a.ref));
  assert(!line(before, a.ref).endsWith(": Search in mail"));
  // A Flutter field reports an empty text and only a hint: the hint is its label.
  const flutter = parseHierarchy(corpus("appium-source_flutter_url_launcher_demo.xml"));
  const url = entry(flutter, (e) => e.node.className === "android.widget.EditText");
  assertEquals(
    line(flutter, url.ref),
    `- EditText "Enter URL\\nwww.example.com" [focused] [ref=${url.ref}]`,
  );
});

const APPS_LIST = "uiautomator_settings_display_over_apps_list.xml";

Deno.test("clickable rows and icon buttons are marked [clickable] and named by their content", () => {
  const screen = parseHierarchy(corpus(APPS_LIST));
  const text = renderSnapshot(screen);
  const refOf = (label: string) => text.match(new RegExp(`"${label}" .*\\[ref=(\\w+)\\]`))![1]!;
  const rows: [string, string][] = [
    ["Android Auto", "Not allowed"],
    ["Google", "Not allowed"],
    ["Google Play services", "Not allowed"],
    ["pet_time_lock", "Not allowed"],
    ["Phone", "Allowed"],
    ["Photos", "Not allowed"],
    ["YouTube", "Not allowed"],
    ["YouTube Music", "Not allowed"],
  ];
  for (const [app, state] of rows) {
    assertStringIncludes(text, `- View "${app}" [clickable] [ref=${refOf(app)}]: ${state}\n`);
  }
  for (const icon of ["Navigate up", "Search", "More options"]) {
    assertStringIncludes(text, `- View "${icon}" [clickable] [ref=${refOf(icon)}]:\n  - Button [`);
  }
  assertStringIncludes(text, '- TextView "Display over other apps" [ref=');
  assert(!/View \[ref=/.test(text), text); // no unnamed, unmarked View is left
  // The row's ref is the tap target: it resolves to the clickable row, not to its text.
  const row = resolveRefAction(screen, { kind: "tap", ref: refOf("Android Auto") });
  assert(row.node.clickable && row.node.text === undefined);
  // A class that says it is interactive is not marked again.
  const calc = renderSnapshot(parseHierarchy(corpus("uiautomator_google_calculator.xml")));
  assert(/- Button "7" \[ref=/.test(calc), calc);
  assert(!/Button[^\n]*\[clickable\]/.test(calc), calc);
  assertStringIncludes(calc, '- LinearLayout "Numbers and basic operations" [clickable] [ref=');
});

Deno.test("a clickable element is named as the optimizer names it (first unique descendant label)", () => {
  let named = 0, compared = 0;
  for (const e of Deno.readDirSync(CORPUS)) {
    if (!e.name.endsWith(".xml")) continue;
    const screen = parseHierarchy(corpus(e.name));
    const table = ScreenTable.from(screen);
    for (const entry of snapshotTree(screen).entries) {
      if (entry.name === undefined) continue;
      named++;
      assert(entry.node.clickable, `${e.name}: ${entry.name} names a node that is not clickable`);
      const [best] = descendantLabelCandidates(table, table.indexOf(entry.node));
      const trail = best?.selector.contentDescription ?? best?.selector.text;
      if (trail === undefined) continue; // an authored id names it in a trail, or no unique label
      assertEquals(entry.name, trail, `${e.name} ${entry.ref}`);
      compared++;
    }
  }
  assert(named >= 60 && compared >= 40, `${named} named, ${compared} compared`);
});

Deno.test("without a unique descendant label, a clickable element reads its descendants' labels", () => {
  const text = renderSnapshot(parseHierarchy(corpus("uiautomator_lockscreen_2018_720p_pt.xml")));
  // Two identical notifications: neither "Telefone" nor "02/04/18" is unique on the screen, and
  // the nested clickable header ("Expandir as notificações") is its own control.
  const rows = text.split("\n").filter((l) =>
    l.startsWith('- FrameLayout "Telefone, 02/04/18, Conteúdo oculto" [clickable] [ref=')
  );
  assertEquals(rows.length, 2, text);
});

Deno.test("a content name is shown, not hashed: the row keeps its ref when its text changes", () => {
  const before = parseHierarchy(corpus(APPS_LIST));
  const renamed = parseHierarchy(
    edited(APPS_LIST, 'text="Android Auto"', 'text="Android Auto 2"'),
  );
  const row = (s: Screen) =>
    entry(s, (e) => e.name?.startsWith("Android Auto") === true && e.node.clickable);
  assertEquals(row(renamed).ref, row(before).ref);
  assertEquals([row(before).name, row(renamed).name], ["Android Auto", "Android Auto 2"]);
  for (const e of snapshotTree(before).entries) {
    assertEquals(e.ref.replace(/[b-z]+$/, ""), baseRef(e.node));
  }
});
