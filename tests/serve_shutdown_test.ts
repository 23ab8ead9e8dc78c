import { assert, assertEquals } from "./assert.ts";
import { blazeRegistry } from "../api/blaze.ts";
import { closeLiveSessions } from "../cli/serve.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { ChromeDriver } from "../drivers/chrome/chrome_driver.ts";
import { serveFolder } from "./web_server.ts";

Deno.test("closeLiveSessions() ends live blaze sessions as interrupted and closes their real Chromium", async () => {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const registry = blazeRegistry(store, { settleMs: 50, screenshots: false });
  try {
    const session = await registry.start({ url: server.url + "login.html", prompt: "Sign in" });
    const driver = session.driver;
    assert(driver instanceof ChromeDriver, "the default driver is Chromium");
    assert(driver.browser.connected, "browser up before shutdown");
    assertEquals(registry.ids(), [session.id]);

    await closeLiveSessions(store);

    assertEquals(registry.ids(), []);
    assert(!driver.browser.connected, "browser still connected after shutdown");
    const ended = [];
    for await (const e of store.readStream(session.streamId)) {
      if (e.type === "SessionEnded") ended.push(e.data);
    }
    assertEquals(ended, [{ reason: "interrupted" }]);
  } finally {
    await registry.closeAll();
    store.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
