import { assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import {
  parseAndroid,
  parseAndroidTree,
  scanAndroid,
} from "../../../engine/screens/parse_android.ts";

const CORPUS = new URL("../../../../shared/corpus/android/", import.meta.url);

/** The corpus's UiAutomator dumps and Appium page sources (XCUITest sources left out). */
function corpusDumps(): [string, string][] {
  const out: [string, string][] = [];
  for (const e of Deno.readDirSync(CORPUS)) {
    if (!e.isFile || !e.name.endsWith(".xml")) continue;
    out.push([e.name, Deno.readTextFileSync(new URL(e.name, CORPUS))]);
  }
  return out.sort(([a], [b]) => a.localeCompare(b));
}

Deno.test("parseAndroid() scans every real corpus dump into the screen the element tree gives, to the key order", () => {
  const dumps = corpusDumps();
  assertEquals(dumps.length >= 20, true, `only ${dumps.length} corpus dumps found`);
  for (const [name, xml] of dumps) {
    const tree = parseAndroidTree(xml);
    const scanned = scanAndroid(xml);
    // the scanner itself read it (no fallback to the element tree)
    assertEquals(scanned !== undefined, true, `${name}: the scanner gave up`);
    assertEquals(scanned, tree, name);
    assertEquals(parseAndroid(xml), tree, name);
    assertEquals(JSON.stringify(scanned), JSON.stringify(tree), name);
  }
});

Deno.test("parseAndroid() reads entities, single quotes, a root that is not <hierarchy> and unknown attributes as the element tree does", () => {
  const [, tasks] = corpusDumps().find(([n]) => n === "uiautomator_google_tasks_list.xml")!;
  const variants = [
    // entities in texts, descriptions, flags and bounds
    tasks.replace(/text="([^"]+)"/, 'text="a &amp; b &#x263A; &#9731; &lt;c&gt;"')
      .replace(/bounds="\[0,0\]/, 'bounds="&#91;0,0]')
      .replace(/clickable="true"/, 'clickable="tr&#117;e"'),
    // single-quoted values holding double quotes
    tasks.replace(/text="([^"]+)"/g, (_, t) => `text='${t} "quoted"'`),
    // a node as the root (no <hierarchy>), with size attributes
    '<node class="android.widget.FrameLayout" width="1080" height="2400" rotation="1" ' +
    'bounds="[0,0][1080,2000]" package="p" index="0" NAF="true" drawing-order="">' +
    '<node text="Hi" content-desc="" resource-id="submit" bounds="[1,2][3,4]" displayed="false"/>' +
    "text between tags is ignored</node>",
    // Appium page source: class names as tags, attributes it does not read, a prolog, a BOM
    "\ufeff<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n" +
    '<hierarchy index="0" class="hierarchy" rotation="0" width="720" height="1280">' +
    '<android.widget.Button index="0" text="OK" visible-to-user="" enabled="false" ' +
    'custom-attr="x" bounds="[10,10][100,60]"/>\n</hierarchy>\n',
  ];
  for (const [i, xml] of variants.entries()) {
    const tree = parseAndroidTree(xml);
    const scanned = scanAndroid(xml);
    assertEquals(scanned !== undefined, true, `variant ${i}: the scanner gave up`);
    assertEquals(JSON.stringify(scanned), JSON.stringify(tree), `variant ${i}`);
  }
  assertEquals(parseAndroid(variants[0]!).root.children.length > 0, true);
});

Deno.test("parseAndroid() reports malformed dumps with the element tree's errors, line and column", () => {
  const bad = [
    '<hierarchy><node bounds="[0,0][1,1]"></hierarchy>',
    '<hierarchy><node text="a" text="b"/></hierarchy>',
    '<hierarchy><node x="1" x="2"/></hierarchy>',
    '<hierarchy><node text="a<b"/></hierarchy>',
    '<hierarchy><node text="a &nope; b"/></hierarchy>',
    '<hierarchy><node bounds="[0,0][1]"/></hierarchy>',
    '<hierarchy><node bounds=""/></hierarchy>',
    '<hierarchy><node text="a"b="c"/></hierarchy>',
    "<hierarchy></hierarchy><hierarchy/>",
    "text <hierarchy/>",
    "<hierarchy/> trailing",
    "<hierarchy><!-- a comment --><node bounds='[0,0]'/></hierarchy>",
    '<AppiumAUT><XCUIElementTypeApplication name="x"/></AppiumAUT>',
    '<XCUIElementTypeApplication name="x"/>',
    "<hierarchy><node",
    "",
    "<hierarchy></node>",
  ];
  for (const xml of bad) {
    assertEquals(scanAndroid(xml), undefined, xml);
    const expected = assertThrows(() => parseAndroidTree(xml), SyntaxError);
    const got = assertThrows(() => parseAndroid(xml), SyntaxError);
    assertEquals(got.message, expected.message, xml);
  }
});
