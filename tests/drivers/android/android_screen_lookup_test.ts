import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { walk } from "../../../engine/screens/ui_node.ts";
import { findNodes, readXml, type StandinNode } from "../../_fixtures/android_standin.ts";
import { assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import {
  AndroidScreenLookup,
  parseUiSelector,
  ScreenFinder,
} from "../../../drivers/android/screen_lookup.ts";
import { ANDROID_ROW_ANCHORED } from "../../../engine/playback/cascade.ts";

const CORPUS = new URL("../../../../shared/corpus/android/", import.meta.url);

function standinNodes(xml: string): StandinNode[] {
  const out: StandinNode[] = [];
  const visit = (n: StandinNode) => {
    out.push(n);
    n.children.forEach(visit);
  };
  visit(readXml(xml));
  return out;
}

function rect(b: string | undefined): string {
  const m = /\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]/.exec(b ?? "")!;
  return `${m[1]},${m[2]},${Number(m[3]) - Number(m[1])},${Number(m[4]) - Number(m[2])}`;
}

Deno.test("AndroidScreenLookup.find() agrees with UiAutomator2's rules (stand-in) on every corpus screen", () => {
  let checked = 0;
  for (const entry of Deno.readDirSync(CORPUS)) {
    const xml = Deno.readTextFileSync(new URL(entry.name, CORPUS));
    const screen = parseHierarchy(xml);
    const lookup = new AndroidScreenLookup(screen);
    const raw = standinNodes(xml);
    const queries = new Map<string, { using: string; value: string }>();
    for (const [n] of walk(screen.root)) {
      if (n.resourceId) queries.set(`id ${n.resourceId}`, { using: "id", value: n.resourceId });
      if (n.contentDescription) {
        queries.set(`a ${n.contentDescription}`, {
          using: "accessibility id",
          value: n.contentDescription,
        });
      }
      if (n.text) {
        const v = `new UiSelector().text(${JSON.stringify(n.text)})`;
        queries.set(v, { using: "-android uiautomator", value: v });
      }
      const c = `new UiSelector().className(${JSON.stringify(n.className)}).instance(1)`;
      queries.set(c, { using: "-android uiautomator", value: c });
    }
    for (const q of queries.values()) {
      const mine = lookup.find(q).map((i) => {
        const b = lookup.table.node(i).bounds;
        return `${b.x},${b.y},${b.w},${b.h}`;
      });
      const theirs = findNodes(raw, q.using, q.value).map((n) => rect(n.attrs.bounds));
      assertEquals(mine, theirs, `${entry.name}: ${q.using} ${q.value}`);
      checked++;
    }
  }
  if (checked < 500) throw new Error(`only ${checked} lookups checked`);
});

Deno.test("AndroidScreenLookup.find() prefixes a bare id with the app package and reads textMatches", () => {
  const xml = Deno.readTextFileSync(new URL("uiautomator_sample_bottom_navigation.xml", CORPUS));
  const finder = new ScreenFinder(parseHierarchy(xml));
  assertEquals(
    finder.findSync({ using: "id", value: "navigation_dashboard" }).map((e) => e.bounds),
    [
      { x: 360, y: 2190, w: 360, h: 147 },
    ],
  );
  const ci = finder.findSync({
    using: "-android uiautomator",
    value: 'new UiSelector().textMatches("(?i)\\\\s*dashboard\\\\s*")',
  });
  assertEquals(ci.map((e) => e.text), ["Dashboard"]);
});

Deno.test("parseUiSelector() rejects what is not a UiSelector chain with a SyntaxError", () => {
  assertThrows(
    () => parseUiSelector('new UiScrollable(new UiSelector()).scrollIntoView(text("x"))'),
    SyntaxError,
    "Cannot read UiSelector",
  );
  assertThrows(
    () =>
      new AndroidScreenLookup({
        platform: "android",
        format: "uiautomator2",
        root: {
          className: "hierarchy",
          bounds: { x: 0, y: 0, w: 1, h: 1 },
          clickable: false,
          enabled: true,
          focused: false,
          checked: false,
          checkable: false,
          selected: false,
          scrollable: false,
          password: false,
          visible: true,
          children: [],
        },
        width: 1,
        height: 1,
      }).find({ using: "xpath", value: "//*" }),
    TypeError,
    "Cannot resolve xpath",
  );
});

Deno.test("parseUiSelector() reads a childSelector's nested chain and names the column of a bad one", () => {
  assertEquals(
    parseUiSelector(
      'new UiSelector().description("Task 5").childSelector(new UiSelector().resourceId("a:id/star").instance(0));',
    ),
    [
      { name: "description", arg: "Task 5" },
      {
        name: "childSelector",
        arg: [{ name: "resourceId", arg: "a:id/star" }, { name: "instance", arg: 0 }],
      },
    ],
  );
  assertThrows(
    () => parseUiSelector('new UiSelector().description("x").childSelector(text("y"))'),
    SyntaxError,
    "at column 49: expected new UiSelector()",
  );
  assertThrows(
    () => parseUiSelector('new UiSelector().description("x").childSelector(new UiSelector()'),
    SyntaxError,
    "Cannot read UiSelector",
  );
});

Deno.test("AndroidScreenLookup.find() resolves childSelector to a descendant of the parent's match (Google Tasks)", () => {
  const xml = Deno.readTextFileSync(new URL("uiautomator_google_tasks_list.xml", CORPUS));
  const finder = new ScreenFinder(parseHierarchy(xml));
  const under = (parent: string, child: string) =>
    finder.findSync({
      using: "-android uiautomator",
      value: `new UiSelector().description("${parent}").childSelector(new UiSelector()${child})`,
    }).map((e) => e.bounds);
  // Task 5's row holds the one star button of its own.
  assertEquals(under("Task 5", '.resourceId("com.google.android.apps.tasks:id/star_button")'), [
    { x: 1429, y: 1656, w: 108, h: 108 },
  ]);
  // Descendants, not only direct children; never the parent itself.
  assertEquals(
    under("Task 5", '.resourceId("com.google.android.apps.tasks:id/task_item_layout")'),
    [],
  );
  // .instance(n) of the child counts within the parent's subtree.
  assertEquals(under("Task 5", ".clickable(true).instance(1)").length, 1);
  assertEquals(
    under("No such task", '.resourceId("com.google.android.apps.tasks:id/star_button")'),
    [],
  );
});

Deno.test("AndroidScreenLookup.find() agrees with the stand-in on childSelector lookups over every corpus screen", () => {
  let checked = 0;
  for (const entry of Deno.readDirSync(CORPUS)) {
    const xml = Deno.readTextFileSync(new URL(entry.name, CORPUS));
    const screen = parseHierarchy(xml);
    const lookup = new AndroidScreenLookup(screen);
    const raw = standinNodes(xml);
    const queries = new Set<string>();
    for (const [n] of walk(screen.root)) {
      if (!n.contentDescription && !n.resourceId) continue;
      const parent = n.contentDescription
        ? `description(${JSON.stringify(n.contentDescription)})`
        : `resourceId(${JSON.stringify(n.resourceId)})`;
      for (const [d] of walk(n)) {
        if (d === n) continue;
        if (d.resourceId) {
          queries.add(
            `new UiSelector().${parent}.childSelector(new UiSelector().resourceId(${
              JSON.stringify(d.resourceId)
            }))`,
          );
        }
        queries.add(
          `new UiSelector().${parent}.childSelector(new UiSelector().className(${
            JSON.stringify(d.className)
          }).instance(1))`,
        );
      }
    }
    for (const value of queries) {
      const q = { using: "-android uiautomator", value };
      const mine = lookup.find(q).map((i) => {
        const b = lookup.table.node(i).bounds;
        return `${b.x},${b.y},${b.w},${b.h}`;
      });
      const theirs = findNodes(raw, q.using, q.value).map((n) => rect(n.attrs.bounds));
      assertEquals(mine, theirs, `${entry.name}: ${value}`);
      checked++;
    }
  }
  if (checked < 300) throw new Error(`only ${checked} childSelector lookups checked`);
});

Deno.test("AndroidScreenLookup.find() keeps a row-anchored lookup's matches that are alone in the nearest ancestor showing the row's text (Google Tasks)", () => {
  const xml = Deno.readTextFileSync(new URL("uiautomator_google_tasks_list.xml", CORPUS));
  const finder = new ScreenFinder(parseHierarchy(xml));
  const rows = (element: string, ...texts: string[]) =>
    finder.findSync({ using: ANDROID_ROW_ANCHORED, value: element, anchored: { element, texts } })
      .map((f) => f.text ?? `${f.bounds.x},${f.bounds.y}`);
  const star = 'new UiSelector().description("Add star")';
  assertEquals(rows(star, "Task 5"), ["1429,1656"]);
  assertEquals(rows(star, "TASK\n 5"), ["1429,1656"]); // whitespace and case as on the web
  assertEquals(rows(star, "Task 1"), ["1429,2136"]); // never "Task 18" or "Task 10"
  assertEquals(rows(star, "Task 99"), []);
  // a further text: the nearest ancestor showing "My Tasks" holds one "Task 5"
  assertEquals(rows(star, "Task 5", "My Tasks"), ["1429,1656"]);
  assertEquals(rows(star, "Task 5", "Starred"), []); // a content description shows no text
  // every task name matches, but only Task 5's is alone in its nearest row showing "Task 5"
  assertEquals(rows('new UiSelector().textMatches("Task \\\\d+")', "Task 5"), ["Task 5"]);
  // a class alone names the row's one check box
  assertEquals(rows('new UiSelector().className("android.view.View")', "Task 5"), ["90,1683"]);
  assertThrows(() => rows("new UiSelector().text(", "Task 5"), SyntaxError);
  assertThrows(
    () => finder.findSync({ using: ANDROID_ROW_ANCHORED, value: star }),
    SyntaxError,
  );
});
