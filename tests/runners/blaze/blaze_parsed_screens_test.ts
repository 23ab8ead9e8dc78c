/**
 * A blaze session keeps each stored hierarchy's parsed screen beside its blob, as an import does:
 * the bytes are those of the stored (secret-scrubbed) hierarchy parsed, so a projection that
 * decodes them gives the trail that parsing the stored hierarchies gives. Real corpus page
 * sources (a login screen, a forms screen that echoes the typed password) served by the Appium
 * STAND-IN, driven by the real Android driver, into a real SQLite file.
 */
import { AndroidDriver } from "../../../drivers/android/android_driver.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { encodeScreen, parsedScreenKind, parseHierarchy } from "../../../engine/screens/mod.ts";
import { projectSessionTrail } from "../../../engine/optimizer/mod.ts";
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { assert, assertEquals } from "../../_fixtures/assert.ts";
import { assertTrailWithoutParsedScreens } from "../../_fixtures/parsed_screens.ts";

const CORPUS = new URL("../../../../shared/corpus/android/", import.meta.url);
const LOGIN = Deno.readTextFileSync(new URL("uiautomator_wdio_demo_reactnative_login.xml", CORPUS));
const FORMS = Deno.readTextFileSync(new URL("uiautomator_wdio_demo_reactnative_forms.xml", CORPUS));
const SECRET = "Tr0ub4dor&3";
const PASSWORD_FIELD = { x: 590, y: 1093 }; // EditText content-desc input-password
const LOGIN_BUTTON = { x: 539, y: 1514 }; // ViewGroup content-desc button-LOGIN

Deno.test("a blaze session keeps the parsed screen of each stored (scrubbed) hierarchy, and the trail is the one parsing gives", async () => {
  // the forms screen shows the password: what is stored differs from what the device served
  const echoing = FORMS.replace('text="Form components"', 'text="Welcome Tr0ub4dor&amp;3"');
  assert(echoing !== FORMS);
  const standin = startAndroidStandin({
    screens: { login: LOGIN, forms: echoing },
    onTap: (_p, hit, screen) => {
      for (let n = hit; n; n = n.parent) {
        if (screen === "login" && n.attrs["content-desc"] === "button-LOGIN") return "forms";
      }
      return undefined;
    },
  });
  const dir = await Deno.makeTempDir({ prefix: "cairn_blaze_parsed_" });
  const dbPath = `${dir}/cairn.db`;
  const store = SqliteEventStore.open(dbPath);
  const driver = await AndroidDriver.connect({
    appium: standin.url,
    session: { appPackage: "com.wdiodemoapp", appActivity: ".MainActivity" },
  });
  try {
    const s = await BlazeSession.start(driver, store, {
      url: "android-app://com.wdiodemoapp/",
      prompt: "Log in",
      settleMs: 20,
    });
    await s.call("step", { text: "Log in" });
    assert((await s.call("type", { ...PASSWORD_FIELD, text: SECRET })).ok);
    assert((await s.call("tap", LOGIN_BUTTON)).ok);
    assertEquals(standin.screen(), "forms");
    await s.call("snapshot", {});
    await s.end("completed");

    const hashes = new Set<string>();
    const texts: string[] = [];
    for await (const e of store.readStream(s.streamId)) {
      if (e.type !== "ScreenCaptured" || hashes.has(e.data.hierarchy.hash)) continue;
      hashes.add(e.data.hierarchy.hash);
      const text = new TextDecoder().decode((await store.getBlob(e.data.hierarchy.hash)).bytes);
      texts.push(text);
      const kept = await store.getDerived(e.data.hierarchy.hash, parsedScreenKind(e.data.format));
      assert(kept, `no parsed screen kept for ${e.data.hierarchy.hash}`);
      // exactly what parsing the stored hierarchy gives
      assertEquals(kept, encodeScreen(parseHierarchy(text, { format: e.data.format })));
    }
    assert(
      texts.some((t) =>
        t.includes('text="Form components"') === false && t.includes("Welcome [redacted]")
      ),
    );
    assert(texts.some((t) => t.includes('text="Welcome [redacted]"')), "the scrubbed forms screen");
    assert(texts.some((t) => t.includes('content-desc="input-password"')), "the login screen");
    assert(hashes.size >= 2, `${hashes.size} hierarchies`);

    const sessionId = s.streamId.replace(/^session-/, "");
    const trail = (await projectSessionTrail(store, sessionId)).yaml;
    store.close();
    await assertTrailWithoutParsedScreens(
      dbPath,
      sessionId,
      trail,
      "UPDATE blobs SET bytes = CAST('<hierarchy><broken' AS BLOB) WHERE media_type = 'application/xml'",
    );
  } finally {
    await driver.close();
    store.close();
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
});
