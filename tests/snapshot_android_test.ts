/**
 * Android snapshot labels on real corpus page sources: a text field keeps its label and ref
 * while text is typed into it (the value is shown after `:`), and clickable elements are marked
 * and, when unlabelled, named by their content as TalkBack reads them.
 */
import { parseHierarchy } from "../engine/hierarchy.ts";
import { diffSnapshots, formatSnapshotDiff } from "../engine/snapshot_diff.ts";
import { resolveRefAction } from "../engine/resolve_ref.ts";
import { renderSnapshot } from "../engine/snapshot.ts";
import { type SnapshotEntry, snapshotTree } from "../engine/snapshot_tree.ts";
import type { Screen } from "../engine/ui_node.ts";
import { assert, assertEquals, assertStringIncludes } from "./assert.ts";

const CORPUS = new URL("../../shared/corpus/android/", import.meta.url);

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
