/**
 * The snapshot's `(N offscreen)` count, in real Chromium on a 127.0.0.1 page through a blaze
 * session: it counts the elements outside the viewport, not the hidden ones (a `<select>`'s
 * closed popup and options), which `offscreen: true` shows marked `[hidden]`.
 */
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";

const OFFSCREEN = /^\((\d+) offscreen/;

async function session<T>(
  height: number,
  fn: (s: BlazeSession) => Promise<T>,
): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "cairn-hidden-count-" });
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch({ viewport: { width: 1280, height } });
  try {
    const s = await BlazeSession.start(driver, store, {
      url: `${server.url}shop_form.html`,
      prompt: "Fill the form",
    });
    return await fn(s);
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("snapshot counts no hidden <select> options as offscreen, before or after typing", async () => {
  await session(800, async (s) => {
    const snap = (await s.call("snapshot", {})).output;
    // everything is in the viewport: no count, though the select's options are in the tree
    assert(!snap.split("\n").some((l) => OFFSCREEN.test(l)), snap);
    const all = (await s.call("snapshot", { offscreen: true })).output;
    assertStringIncludes(all, 'option "Medium" [hidden]');
    assert(!all.includes("[offscreen]"), all);
    const user = refIn(snap.split("\n").filter((l) => l.includes("textbox")).join("\n"), "User");
    assert((await s.call("type", { ref: user, text: "ada" })).ok);
    const diff = (await s.call("snapshot", { diff: true })).output;
    assertStringIncludes(diff, 'textbox "User"');
    assert(!/offscreen/.test(diff), diff);
  });
});

Deno.test("snapshot's offscreen count is the elements below the viewport, the hidden ones left out", async () => {
  await session(90, async (s) => {
    const snap = (await s.call("snapshot", {})).output.split("\n");
    const count = snap.map((l) => OFFSCREEN.exec(l)).find((m) => m)?.[1];
    const all = (await s.call("snapshot", { offscreen: true })).output.split("\n");
    const below = all.filter((l) => l.includes("[offscreen]")).length;
    assert(below > 0, all.join("\n"));
    assert(all.some((l) => l.includes("[hidden]")), all.join("\n"));
    assertEquals(Number(count), below, snap.join("\n"));
  });
});
