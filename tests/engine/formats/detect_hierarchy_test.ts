import { assertEquals } from "../../_fixtures/assert.ts";
import { detectHierarchyFormat } from "../../../engine/formats/detect_hierarchy.ts";

const CORPUS = new URL("../../../../shared/corpus/", import.meta.url).pathname;

Deno.test("detectHierarchyFormat() names the format of every corpus hierarchy", async () => {
  const cases: [string, string][] = [
    ["android/uiautomator_gmail_inbox.xml", "uiautomator-dump"],
    ["android/appium-source_theapp_login.xml", "uiautomator2"],
    ["ios/xcuitest-source_safari_iphone.xml", "xcuitest"],
    ["ios/maestro-hierarchy_rn_testingmaestro_iphone.json", "maestro"],
    ["ios/trailblaze-waypoint_contacts_ios_lists.example.json", "trailblaze"],
  ];
  for (const [file, format] of cases) {
    assertEquals(detectHierarchyFormat(await Deno.readTextFile(CORPUS + file)), format, file);
  }
});

Deno.test("detectHierarchyFormat() reads axtree_v1 text and objects, and gives up on others", () => {
  const ax = { schema_version: "axtree_v1", nodes: [{ node_id: "1", role: "button" }] };
  assertEquals(detectHierarchyFormat(ax), "axtree_v1");
  assertEquals(detectHierarchyFormat(JSON.stringify(ax)), "axtree_v1");
  assertEquals(detectHierarchyFormat({ nodes: [{ node_id: 3 }] }), "axtree_v1");
  assertEquals(detectHierarchyFormat({ attributes: {}, children: [] }), "maestro");
  assertEquals(detectHierarchyFormat("<html></html>"), undefined);
  assertEquals(detectHierarchyFormat("{ not json"), undefined);
  assertEquals(detectHierarchyFormat({ hello: 1 }), undefined);
});
