import {
  assert,
  assertEquals,
  assertStringIncludes,
  assertThrows,
} from "../../_fixtures/assert.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { renderSnapshot, type RenderSnapshotOptions } from "../../../engine/screens/snapshot.ts";
import { shortClassName } from "../../../engine/screens/snapshot_tree.ts";
import {
  makeNode,
  type Screen,
  type UiNode,
  type UiNodeInit,
} from "../../../engine/screens/ui_node.ts";

const CORPUS = new URL("../../../../shared/corpus/", import.meta.url);

function screen(children: UiNode[], platform: Screen["platform"] = "android"): Screen {
  const root = makeNode({
    className: platform === "ios" ? "XCUIElementTypeApplication" : "android.widget.FrameLayout",
    bounds: { x: 0, y: 0, w: 400, h: 800 },
    children,
  });
  return {
    platform,
    format: platform === "ios" ? "xcuitest" : "uiautomator2",
    root,
    width: 400,
    height: 800,
  };
}

function n(init: UiNodeInit): UiNode {
  return makeNode({ bounds: { x: 10, y: 10, w: 100, h: 40 }, ...init });
}

/** The rendered lines without refs, for compact expectations. */
function lines(s: Screen, options: RenderSnapshotOptions = {}): string[] {
  return renderSnapshot(s, options).trimEnd().split("\n").map((l) =>
    l.replace(/ \[ref=[a-z]\d+[a-z]*\]/, "")
  );
}

Deno.test("shortClassName() shortens native class names", () => {
  const cases: [string, string][] = [
    ["android.widget.Button", "Button"],
    ["androidx.recyclerview.widget.RecyclerView", "RecyclerView"],
    ["XCUIElementTypeStaticText", "StaticText"],
    ["StaticText", "text"],
    ["button", "button"],
  ];
  for (const [full, short] of cases) assertEquals(shortClassName(full), short);
});

Deno.test("renderSnapshot() suppresses generic layout containers and lifts their children", () => {
  const s = screen([
    n({
      className: "android.widget.LinearLayout",
      children: [
        n({
          className: "androidx.constraintlayout.widget.ConstraintLayout",
          children: [n({ className: "android.widget.Button", text: "OK", clickable: true })],
        }),
      ],
    }),
  ]);
  assertEquals(lines(s), ['- Button "OK"']);
});

Deno.test("renderSnapshot() keeps a generic container that is clickable, labelled or test-id'd", () => {
  const s = screen([
    n({
      className: "android.view.ViewGroup",
      clickable: true,
      children: [n({ className: "android.widget.TextView", text: "Sign in" })],
    }),
    n({ className: "android.view.View", contentDescription: "Avatar" }),
    n({ className: "android.view.View", resourceId: "banner", testId: "banner" }),
  ]);
  // An unlabelled clickable container is named by its content and marked clickable (Android).
  assertEquals(lines(s), [
    '- ViewGroup "Sign in" [clickable]',
    '- View "Avatar"',
    '- View [id="banner"]',
  ]);
});

Deno.test("renderSnapshot() annotates states", () => {
  const s = screen([
    n({ className: "android.widget.Switch", text: "Wi-Fi", checkable: true, checked: true }),
    n({ className: "android.widget.CheckBox", text: "Remember", checkable: true }),
    n({ className: "android.widget.Button", text: "Pay", enabled: false }),
    n({ className: "android.widget.EditText", text: "bob", focused: true, hint: "Name" }),
    n({ className: "android.widget.EditText", text: "••••", password: true }),
    n({ className: "android.widget.TextView", text: "Tab", selected: true }),
    n({ className: "android.widget.ScrollView", scrollable: true }),
  ]);
  assertEquals(lines(s), [
    '- Switch "Wi-Fi" [checked]',
    '- CheckBox "Remember" [checked=false]',
    '- Button "Pay" [disabled]',
    '- EditText "Name" [focused]: bob', // a field is labelled by its hint, its text is typed
    "- EditText [password]", // no label reported; a password's value is never shown
    '- TextView "Tab" [selected]',
    "- ScrollView [scrollable]",
  ]);
});

Deno.test("renderSnapshot() counts off-screen elements (not hidden ones), or shows both marked", () => {
  const s = screen([
    n({ className: "android.widget.Button", text: "Here", clickable: true }),
    n({
      className: "android.widget.Button",
      text: "Below",
      clickable: true,
      bounds: { x: 0, y: 900, w: 100, h: 40 },
    }),
    n({ className: "android.widget.Button", text: "Hidden", clickable: true, visible: false }),
  ]);
  // the hidden button is no more offscreen than a select's closed options are
  assertEquals(lines(s), ['- Button "Here"', "(1 offscreen)"]);
  assertEquals(lines(s, { offscreen: true, bounds: true }), [
    '- Button "Here" {x:10,y:10,w:100,h:40}',
    '- Button "Below" [offscreen] {x:0,y:900,w:100,h:40}',
    '- Button "Hidden" [hidden] {x:10,y:10,w:100,h:40}',
  ]);
});

Deno.test("renderSnapshot() cuts at a depth and renders the subtree of a ref", () => {
  const s = screen([
    n({
      className: "android.widget.ListView",
      scrollable: true,
      children: [
        n({ className: "android.widget.Button", text: "A", clickable: true }),
        n({ className: "android.widget.Button", text: "B", clickable: true }),
      ],
    }),
    n({ className: "android.widget.TextView", text: "Footer" }),
  ]);
  assertEquals(lines(s, { depth: 1 }), ["- ListView [scrollable] [+2]", '- TextView "Footer"']);
  const ref = /\[ref=([a-z0-9]+)\]/.exec(renderSnapshot(s))![1]!;
  assertEquals(lines(s, { root: ref }), [
    "- ListView [scrollable]:",
    '  - Button "A"',
    '  - Button "B"',
  ]);
  assertThrows(() => renderSnapshot(s, { root: "z999" }), RangeError, "z999");
});

Deno.test("renderSnapshot() drops the iOS status bar, scroll indicators and chevrons", () => {
  const s = screen([
    n({
      className: "XCUIElementTypeStaticText",
      value: "9:41",
      bounds: { x: 40, y: 14, w: 50, h: 20 },
    }),
    n({
      className: "XCUIElementTypeOther",
      contentDescription: "Vertical scroll bar, 2 pages",
      value: "0%",
      bounds: { x: 380, y: 100, w: 6, h: 600 },
    }),
    n({
      className: "XCUIElementTypeImage",
      contentDescription: "chevron",
      bounds: { x: 360, y: 200, w: 10, h: 16 },
    }),
    n({
      className: "XCUIElementTypeButton",
      contentDescription: "Back",
      clickable: true,
      bounds: { x: 10, y: 10, w: 40, h: 30 },
    }),
    n({
      className: "XCUIElementTypeStaticText",
      text: "Settings",
      bounds: { x: 20, y: 100, w: 200, h: 30 },
    }),
  ], "ios");
  assertEquals(lines(s), ["- Application:", '  - Button "Back"', '  - StaticText "Settings"']);
});

/** An iPhone SE Mail screen: its navigation bar's subtitle sits at y 24–38, within the top 50 pt. */
function mailScreen(statusBar: string): Screen {
  const el = (type: string, attrs: string, children = "") =>
    `<XCUIElementType${type} type="XCUIElementType${type}" enabled="true" visible="true" ${attrs}` +
    (children ? `>${children}</XCUIElementType${type}>` : "/>");
  return parseHierarchy(
    `<?xml version="1.0" encoding="UTF-8"?><AppiumAUT>` +
      el(
        "Application",
        'name="Mail" label="Mail" x="0" y="0" width="375" height="667"',
        el(
          "Window",
          'x="0" y="0" width="375" height="667"',
          statusBar +
            el(
              "NavigationBar",
              'name="Inbox" x="0" y="20" width="375" height="44"',
              el(
                "Button",
                'name="Mailboxes" label="Mailboxes" x="0" y="20" width="100" height="44"',
              ) +
                el(
                  "StaticText",
                  'value="Inbox" label="Inbox" x="160" y="31" width="55" height="22"',
                ) +
                el(
                  "StaticText",
                  'value="Updated Just Now" label="Updated Just Now" x="120" y="24" width="135" height="14"',
                ) +
                el("Other", 'label="Synced" x="300" y="24" width="60" height="14"'),
            ) +
            el("Cell", 'name="msg-1" label="Alice, Lunch?" x="0" y="64" width="375" height="88"'),
        ),
      ) + `</AppiumAUT>`,
  );
}

Deno.test("renderSnapshot() takes the iOS status bar from the StatusBar element when the screen has one", () => {
  const bar = '<XCUIElementTypeStatusBar type="XCUIElementTypeStatusBar" x="0" y="0" width="375" ' +
    'height="20"><XCUIElementTypeOther type="XCUIElementTypeOther" label="9:41 AM" x="10" y="2" ' +
    'width="50" height="16"/><XCUIElementTypeOther type="XCUIElementTypeOther" ' +
    'label="100% battery power" x="330" y="2" width="25" height="12"/></XCUIElementTypeStatusBar>';
  for (const options of [{}, { offscreen: true }]) {
    const text = lines(mailScreen(bar), options).join("\n");
    assert(!/9:41|battery/.test(text), text);
    // in the top 50 pt, but not in the status bar: the app's own
    assertStringIncludes(text, '    - StaticText "Updated Just Now"');
    assertStringIncludes(text, '    - "Synced"');
  }
});

Deno.test("renderSnapshot() keeps a typed element near the top of an iOS screen without a StatusBar", () => {
  // the app's tree without the status bar (XCUITest reports it in SpringBoard's since iOS 13)
  const text = lines(mailScreen(""), { offscreen: true }).join("\n");
  assertStringIncludes(text, '    - StaticText "Updated Just Now"');
  assertStringIncludes(text, '    - StaticText "Inbox"');
  // an untyped label there still reads as a status bar item, as Maestro's and Trailblaze's are
  assert(!text.includes("Synced"), text);
  const maestro = parseHierarchy(
    Deno.readTextFileSync(new URL("ios/maestro-hierarchy_rn_testingmaestro_iphone.json", CORPUS)),
  );
  const shown = renderSnapshot(maestro, { offscreen: true });
  assert(!/08:54|Wi-Fi|charging/.test(shown), shown);
  assertStringIncludes(shown, "BOX 1");
});

Deno.test("renderSnapshot() drops the Android status bar window beside an app, not a shade on its own", () => {
  const tasks = parseHierarchy(
    Deno.readTextFileSync(new URL("android/uiautomator_google_tasks_list.xml", CORPUS)),
  );
  const text = renderSnapshot(tasks, { offscreen: true });
  assert(!/Battery|Wi-Fi|signal/i.test(text), "no status bar icons");
  assertStringIncludes(text, "Create new task");
  const shade = parseHierarchy(
    Deno.readTextFileSync(
      new URL("android/uiautomator_systemui_notification_shade_es.xml", CORPUS),
    ),
  );
  assert(renderSnapshot(shade).split("\n").length > 10, "the shade itself is shown");
});
