/**
 * A ref the agent was shown still works after its element's text changed (the ref hashes the
 * text, so the element has a new one): real Chromium, a counter whose label changes.
 *
 * @module
 */
import {
  assert,
  assertEquals,
  assertNotEquals,
  assertStringIncludes,
} from "../../_fixtures/assert.ts";
import { blazeRegistry } from "../../../api/blaze.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

Deno.test("blaze: assert and read accept the ref of an element whose text changed since the snapshot", async () => {
  const dir = await Deno.makeTempDir();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const registry = blazeRegistry(store, { settleMs: 100 });
  const web = serveFolder();
  const PAGE = web.url + "counter_label.html";
  const session = await registry.start({ url: PAGE, prompt: "Add one item" });
  try {
    const before = (await session.call("snapshot", {})).output;
    const count = refIn(before, "Items: 3");
    const tapped = await session.call("tap", { ref: refIn(before, "Add one") });
    assert(tapped.ok, tapped.output);
    // what an MCP action answers with: the diff, where the element has a new ref (the text is
    // part of it)
    const after = (await session.call("snapshot", { diff: true })).output;
    const added = after.split("\n").filter((l) => l.startsWith("+ ")).join("\n");
    const now = refIn(added, "Items: 4");
    assertNotEquals(now, count);

    // the agent's ref from its snapshot still names the element
    const checked = await session.call("assert", { ref: count, text: "Items: 4" });
    assert(checked.ok, checked.output);
    assertStringIncludes(checked.output, `ref ${count} is now ${now}`);
    const read = await session.call("read", { ref: count, storeAs: "items" });
    assertEquals(read.value, "Items: 4");
    // the element the old ref named is gone: the ref is an error, not some other element
    await session.call("navigate", { url: web.url + "login.html" });
    const gone = await session.call("assert", { ref: count, text: "Items: 4" });
    assert(!gone.ok, gone.output);
    // a ref no element had stays an error
    const unknown = await session.call("assert", { ref: "q999", text: "x" });
    assert(!unknown.ok);
    assertStringIncludes(unknown.output, "not on the current screen");
  } finally {
    await registry.finish(session.id, "completed");
    await web.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
