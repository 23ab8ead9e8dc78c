import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import { BlazeSession, NO_EARLIER_SNAPSHOT } from "../drivers/blaze_session.ts";
import { ChromeDriver } from "../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { serveFolder } from "./web_server.ts";
import { refIn } from "./blaze_refs.ts";

/** A blaze session on `fields.html` in real Chromium, ended after `fn`, everything closed. */
async function onFields(prompt: string, fn: (s: BlazeSession) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  try {
    const s = await BlazeSession.start(driver, store, {
      url: server.url + "fields.html",
      prompt,
      settleMs: 50,
    });
    await fn(s);
    await s.end();
  } finally {
    await driver.close();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("BlazeSession type fails on what is not editable (a heading, a read-only field, the focused button) and types into a field or contenteditable", async () => {
  await onFields("Fill the form", async (s) => {
    const snap = (await s.call("snapshot", {})).output;
    const heading = await s.call("type", { ref: refIn(snap, "Details"), text: "hello" });
    assertEquals(heading.ok, false, heading.output);
    assertStringIncludes(String(heading.error), 'Cannot type into heading "Details"');
    assertStringIncludes(String(heading.error), "not a text field");
    const code = await s.call("type", { ref: refIn(snap, "Code"), text: "B-2" });
    assertEquals(code.ok, false, code.output);
    assertStringIncludes(String(code.error), "read-only");
    const name = await s.call("type", { ref: refIn(snap, "Name"), text: "Ada" });
    assert(name.ok, name.output);
    const notes = await s.call("type", { ref: refIn(snap, "Notes"), text: "hi there" });
    assert(notes.ok, notes.output);
    // without a ref, the focused element is checked the same way
    assert((await s.call("tap", { ref: refIn(snap, "Done") })).ok);
    const focused = await s.call("type", { text: "x" });
    assertEquals(focused.ok, false, focused.output);
    assertStringIncludes(String(focused.error), 'Cannot type into the focused button "Done"');
    assert((await s.call("tap", { ref: refIn(snap, "Name") })).ok);
    const intoName = await s.call("type", { text: "Bob" });
    assert(intoName.ok, intoName.output);
    const after = (await s.call("snapshot", {})).output;
    assertStringIncludes(after, "Bob");
    assertStringIncludes(after, "hi there");
    assertStringIncludes(after, "A-1");
    assert(!after.includes("hello"), after);
  });
});

Deno.test("BlazeSession snapshot --diff with no earlier snapshot says so before the full snapshot", async () => {
  await onFields("Look", async (s) => {
    const first = (await s.call("snapshot", { diff: true })).output;
    assert(first.startsWith(NO_EARLIER_SNAPSHOT + "\n"), first);
    assertStringIncludes(first, 'heading "Details"');
    assertEquals((await s.call("snapshot", { diff: true })).output, "unchanged\n");
    // other options are another snapshot: nothing earlier to diff against
    const bounds = (await s.call("snapshot", { diff: true, bounds: true })).output;
    assert(bounds.startsWith(NO_EARLIER_SNAPSHOT), bounds);
  });
});
