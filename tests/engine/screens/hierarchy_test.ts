import {
  assert,
  assertEquals,
  assertStringIncludes,
  assertThrows,
} from "../../_fixtures/assert.ts";
import { parseAxTree } from "../../../engine/screens/parse_axtree.ts";
import {
  detectFormat,
  parseHierarchy,
  registerHierarchyParser,
} from "../../../engine/screens/hierarchy.ts";
import { parseAndroid } from "../../../engine/screens/parse_android.ts";
import { type UiNode, walk } from "../../../engine/screens/ui_node.ts";

const CORPUS = new URL("../../../../shared/corpus/", import.meta.url);

function corpusFiles(dir: string): string[] {
  return [...Deno.readDirSync(new URL(dir, CORPUS))]
    .map((e) => e.name)
    .filter((n) => /\.(xml|json)$/.test(n))
    .sort();
}

function read(path: string): string {
  return Deno.readTextFileSync(new URL(path, CORPUS));
}

function find(root: UiNode, pred: (n: UiNode) => boolean): UiNode | undefined {
  for (const [n] of walk(root)) if (pred(n)) return n;
  return undefined;
}

Deno.test("parseHierarchy() parses every Android and iOS corpus file with auto-detection", () => {
  const files = [
    ...corpusFiles("android/").map((n) => `android/${n}`),
    ...corpusFiles("ios/").map((n) => `ios/${n}`),
  ];
  assertEquals(files.length, 34);
  for (const f of files) {
    const s = parseHierarchy(read(f));
    assertEquals(s.platform, f.startsWith("android/") ? "android" : "ios", f);
    assert(s.width > 0 && s.height > 0, `${f}: screen size ${s.width}x${s.height}`);
    let count = 0;
    for (const [n] of walk(s.root)) {
      count++;
      assert(Number.isFinite(n.bounds.x) && n.bounds.w >= 0 && n.bounds.h >= 0, f);
    }
    assert(count > 5, `${f}: only ${count} nodes`);
  }
});

Deno.test("detectFormat() names each corpus format", () => {
  const cases: [string, string][] = [
    ["android/appium-source_facebook_login_es.xml", "uiautomator2"],
    ["android/appium-source_tiktoklite_signup_id.xml", "uiautomator2"],
    ["android/uiautomator_gmail_inbox.xml", "uiautomator-dump"],
    ["ios/xcuitest-source_safari_iphone.xml", "xcuitest"],
    ["ios/maestro-hierarchy_rn_testingmaestro_iphone.json", "maestro"],
    ["ios/trailblaze-waypoint_contacts_ios_lists.example.json", "trailblaze"],
  ];
  for (const [f, want] of cases) assertEquals(detectFormat(read(f)), want, f);
});

Deno.test("parseAndroid() maps resource-id, content-desc, hint, flags and bounds", () => {
  const s = parseAndroid(`<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="0">
  <node index="0" text="" resource-id="com.app:id/email" class="android.widget.EditText" package="com.app"
    content-desc="Email" checkable="false" checked="false" clickable="true" enabled="true" focusable="true"
    focused="true" scrollable="false" long-clickable="false" password="false" selected="false"
    bounds="[10,20][310,120]" hint="you@example.com">
    <node class="android.widget.TextView" text="a &amp; b&#10;c &#127468;&#127463;" resource-id="send_button" bounds="[0,0][0,0]" enabled="false"/>
  </node>
</hierarchy>`);
  const edit = s.root.children[0]!;
  assertEquals(edit.className, "android.widget.EditText");
  assertEquals(edit.resourceId, "com.app:id/email");
  assertEquals(edit.testId, undefined);
  assertEquals(edit.contentDescription, "Email");
  assertEquals(edit.hint, "you@example.com");
  assertEquals(edit.text, undefined);
  assertEquals(edit.bounds, { x: 10, y: 20, w: 300, h: 100 });
  assertEquals([edit.clickable, edit.focused, edit.enabled, edit.checked], [
    true,
    true,
    true,
    false,
  ]);
  assertEquals(edit.attrs?.package, "com.app");
  assertEquals(edit.attrs?.index, "0");
  assertEquals(edit.attrs?.tag, "node");
  const label = edit.children[0]!;
  assertEquals(label.text, "a & b\nc \u{1F1EC}\u{1F1E7}");
  assertEquals(label.testId, "send_button");
  assertEquals(label.resourceId, "send_button");
  assertEquals(label.enabled, false);
  assertEquals(label.bounds, { x: 0, y: 0, w: 0, h: 0 });
  assertEquals(s.format, "uiautomator-dump");
});

Deno.test("parseAndroid() reads Appium page source: class tags, omitted attributes, several windows", () => {
  const fb = parseHierarchy(read("android/appium-source_facebook_login_es.xml"));
  assertEquals(fb.format, "uiautomator2");
  assertEquals(fb.height, 2400); // root node bounds exceed <hierarchy height="2254">
  const frame = fb.root.children[0]!;
  assertEquals(frame.attrs?.tag, "android.widget.FrameLayout");
  assertEquals(frame.resourceId, undefined); // attribute omitted in newer Appium sources
  const tasks = parseHierarchy(read("android/uiautomator_google_tasks_list.xml"));
  assertEquals(tasks.root.children.length, 2); // status bar window + app window
  assertEquals(tasks.root.children[0]!.attrs?.package, "com.android.systemui");
  const msgs = parseHierarchy(read("android/uiautomator_google_messages_compose_conversation.xml"));
  const send = find(msgs.root, (n) => n.resourceId === "Compose:Draft:Send");
  assertEquals(send?.testId, "Compose:Draft:Send");
  const doctor = parseHierarchy(read("android/appium-source_doctorapp_language_dialog.xml"));
  assert(
    find(doctor.root, (n) => n.contentDescription === "\u{1F1EC}\u{1F1E7}\nEnglish") !== undefined,
  );
  const tiktok = parseHierarchy(read("android/appium-source_tiktoklite_signup_id.xml"));
  assertEquals(tiktok.root.children[0]!.attrs?.instance, "0");
});

Deno.test("parseHierarchy() reads XCUITest, Maestro and Trailblaze iOS captures", () => {
  const safari = parseHierarchy(read("ios/xcuitest-source_safari_iphone.xml"));
  assertEquals([safari.width, safari.height], [430, 932]);
  assertEquals(safari.root.className, "XCUIElementTypeApplication");
  assert(
    find(safari.root, (n) => n.resourceId?.startsWith("SafariWindow?View=Narrow&Bars") ?? false),
  );
  const field = find(safari.root, (n) => n.className === "XCUIElementTypeTextField");
  assert(field?.clickable === true);
  const lock = parseHierarchy(read("ios/xcuitest-source_ios_lockscreen_springboard.xml"));
  assertEquals(lock.root.resourceId, undefined); // name=" " is no identifier
  const maestro = parseHierarchy(read("ios/maestro-hierarchy_rn_testingmaestro_iphone.json"));
  assertEquals([maestro.width, maestro.height], [393, 852]);
  const box = find(maestro.root, (n) => n.resourceId === "box-title");
  assertEquals(box?.testId, "box-title");
  const tb = parseHierarchy(read("ios/trailblaze-waypoint_contacts_ios_lists.example.json"));
  assertEquals([tb.width, tb.height, tb.platform], [402, 874, "ios"]);
  const cancel = find(tb.root, (n) => n.contentDescription === "Cancel");
  assertEquals(cancel?.bounds, { x: 20, y: 82, w: 36, h: 36 });
  const cal = parseHierarchy(
    read("trailblaze/trailmap/calendar_android_add_location.example.json"),
  );
  assertEquals(cal.platform, "android");
  assertEquals(find(cal.root, (n) => n.focused)?.hint, "Add location");
});

Deno.test("parseHierarchy() throws SyntaxError with line and column on malformed XML", () => {
  const cases: [string, string][] = [
    ['<hierarchy>\n  <node bounds="[0,0][1,1]">\n</hierarchy>', "line 3, column 1"],
    ['<hierarchy>\n<node text="a & b" bounds="[0,0][1,1]"/></hierarchy>', "line 2, column 15"],
    ['<hierarchy>\n<node text="x" bounds="[0,0][1,1]"', "line 2, column 1"],
    ['<hierarchy>\n<node text="x" text="y"/></hierarchy>', "line 2, column 21"],
    ['<hierarchy>\n<node bounds="0,0,1,1"/></hierarchy>', "line 2, column 1"],
    ["<hierarchy><node/></hierarchy>\n<extra/>", "line 2, column 1"],
  ];
  for (const [xml, where] of cases) {
    const err = assertThrows(() => parseHierarchy(xml), SyntaxError);
    assertStringIncludes(err.message, where);
  }
  assertThrows(
    () => parseHierarchy('<hierarchy><node bounds="[0,0][1,1]"></hierarchy>'),
    SyntaxError,
    "Expected </node> (opened at line 1, column 12) but found </hierarchy> at line 1, column 38",
  );
});

Deno.test("parseHierarchy() throws SyntaxError with line and column on malformed JSON", () => {
  assertThrows(
    () => parseHierarchy('{\n  "attributes": {},\n  "children": [,]\n}'),
    SyntaxError,
    "line 3, column 16: unexpected character",
  );
  assertThrows(() => parseHierarchy('{"foo": 1}'), SyntaxError, "Cannot detect hierarchy format");
  assertThrows(() => parseHierarchy("   "), SyntaxError, "the input is empty");
  assertThrows(
    () => parseHierarchy('{"attributes":{"bounds":"nope"},"children":[]}'),
    SyntaxError,
    "root.attributes.bounds",
  );
});

Deno.test("parseHierarchy() reads axtree_v1 without the side-effect registration import", () => {
  // This file imports neither engine/formats/axtree_register.ts nor anything that does.
  const text = JSON.stringify({
    schema_version: "axtree_v1",
    page_url: "https://shop.test/",
    nodes: [
      { node_id: "1", role: "RootWebArea", name: "Shop", children: ["2"] },
      { node_id: "2", role: "button", name: "Go", children: [] },
    ],
  });
  const s = parseHierarchy(text, { format: "axtree_v1" });
  assertEquals(s.url, "https://shop.test/");
  assertEquals(find(s.root, (n) => n.role === "button")?.name, "Go");
  assertThrows(() => parseHierarchy("{", { format: "axtree_v1" }), SyntaxError);
});

Deno.test("registerHierarchyParser() replaces the built-in axtree_v1 parser", () => {
  const builtIn = parseHierarchy(
    '{"schema_version":"axtree_v1","nodes":[{"node_id":"1","role":"RootWebArea"}]}',
    { format: "axtree_v1" },
  );
  registerHierarchyParser("axtree_v1", () => ({ ...builtIn, url: "registered" }));
  try {
    assertEquals(parseHierarchy("{}", { format: "axtree_v1" }).url, "registered");
  } finally {
    registerHierarchyParser("axtree_v1", (text, json) => parseAxTree(json ?? JSON.parse(text)));
  }
});
