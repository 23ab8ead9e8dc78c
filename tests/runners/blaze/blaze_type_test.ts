import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { BlazeSession, NO_EARLIER_SNAPSHOT } from "../../../runners/blaze/session.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";

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

/** The center of the element on the line with `label` of a `snapshot --bounds`. */
function centerOf(snapshot: string, label: string): { x: number; y: number } {
  const line = snapshot.split("\n").find((l) => l.includes(JSON.stringify(label)));
  const m = line?.match(/\{x:(-?\d+),y:(-?\d+),w:(\d+),h:(\d+)\}/);
  if (!m) throw new Error(`No bounds for ${label} in snapshot:\n${snapshot}`);
  const [x, y, w, h] = m.slice(1).map(Number) as [number, number, number, number];
  return { x: Math.round(x + w / 2), y: Math.round(y + h / 2) };
}

Deno.test("BlazeSession type at a bare point checks the element there as a ref is checked, and types into a field or contenteditable", async () => {
  await onFields("Fill the form by points", async (s) => {
    const snap = (await s.call("snapshot", { bounds: true })).output;
    // a point on the heading: what is there is no text field
    const heading = await s.call("type", { ...centerOf(snap, "Details"), text: "hello" });
    assertEquals(heading.ok, false, heading.output);
    assertStringIncludes(String(heading.error), 'Cannot type into heading "Details"');
    const code = await s.call("type", { ...centerOf(snap, "Code"), text: "B-2" });
    assertEquals(code.ok, false, code.output);
    assertStringIncludes(String(code.error), 'Cannot type into textbox "Code": it is read-only');
    // the point falls on the button's label text: the button is named
    const done = await s.call("type", { ...centerOf(snap, "Done"), text: "x" });
    assertEquals(done.ok, false, done.output);
    assertStringIncludes(String(done.error), 'Cannot type into button "Done"');
    const name = await s.call("type", { ...centerOf(snap, "Name"), text: "Ada" });
    assert(name.ok, name.output);
    assertStringIncludes(name.output, 'Typed "Ada" into textbox "Name"');
    const notes = await s.call("type", { ...centerOf(snap, "Notes"), text: "hi there" });
    assert(notes.ok, notes.output);
    const after = (await s.call("snapshot", {})).output;
    assertStringIncludes(after, "Ada");
    assertStringIncludes(after, "A-1");
    assertStringIncludes(after, "hi there");
    assert(!after.includes("hello") && !after.includes("B-2"), after);
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
