import { assertEquals, assertThrows } from "../../_fixtures/assert.ts";
import { parseAndroid } from "../../../engine/screens/parse_android.ts";
import { parseXml } from "../../../engine/screens/xml.ts";

const TASKS = new URL(
  "../../../../shared/corpus/android/uiautomator_google_tasks_list.xml",
  import.meta.url,
);

Deno.test("parseXml() reads the same tree of a real dump before and after its name and value caches fill", () => {
  const dump = Deno.readTextFileSync(TASKS);
  const before = JSON.stringify(parseAndroid(dump));
  // 3,000 names and 10,000 values of one length and first letter: more than either cache keeps
  const names = Array.from({ length: 3000 }, (_, i) => `n${String(i).padStart(5, "0")}`);
  const values = Array.from({ length: 10000 }, (_, i) => `value-${String(i).padStart(10, "0")}`);
  const xml = `<r>${
    values.map((v, i) => `<e ${names[i % names.length]}="${v}" k${i % 7}="${v}x"/>`).join("")
  }</r>`;
  const root = parseXml(xml);
  assertEquals(root.children.length, values.length);
  for (const [i, e] of root.children.entries()) {
    assertEquals(e.attrs, {
      [names[i % names.length]!]: values[i]!,
      [`k${i % 7}`]: `${values[i]}x`,
    });
  }
  assertEquals(JSON.stringify(parseAndroid(dump)), before);
});

Deno.test("parseXml() finds '<' and entities in any attribute of an element, not only the first", () => {
  const e = parseXml(
    '<a x="plain value here" y="a&amp;b&lt;c" z="false" w="com.example:id/long_id"/>',
  );
  assertEquals(e.attrs, {
    x: "plain value here",
    y: "a&b<c",
    z: "false",
    w: "com.example:id/long_id",
  });
  const err = assertThrows(() => parseXml('<a x="1" y="2">\n<b p="ok" q="a<b"/></a>'), SyntaxError);
  assertEquals(err.message.includes("'<' in attribute value"), true, err.message);
  assertEquals(err.message.includes("line 2, column 15"), true, err.message);
  assertThrows(() => parseXml('<a x="1" x="1"/>'), SyntaxError, "Duplicate attribute x");
});
