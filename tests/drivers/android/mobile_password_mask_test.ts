/**
 * A stored Android or iOS page source shows no password's length: UiAutomator2 reports a
 * password field's text as one mask character a character (`••••`), XCUITest a secure text
 * field's value likewise, so `SecretScrubber.hierarchy` stores a filled password field's text as
 * a fixed `[redacted]`, whether or not a secret was typed in the session. Real corpus page
 * sources edited to hold a masked password; the blaze path through the Appium stand-in and the
 * real Android driver into a real SQLite file.
 */
import { AndroidDriver } from "../../../drivers/android/android_driver.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { SecretScrubber } from "../../../drivers/secret_scrubber.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { walk } from "../../../engine/screens/ui_node.ts";
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";

const CORPUS = new URL("../../../../shared/corpus/", import.meta.url);
const corpus = (path: string) => Deno.readTextFileSync(new URL(path, CORPUS));
const RN_LOGIN = corpus("android/uiautomator_wdio_demo_reactnative_login.xml");
const FACEBOOK = corpus("android/appium-source_facebook_login_es.xml");
const SAFARI = corpus("ios/xcuitest-source_safari_iphone.xml");

/** The React Native login screen with `text` in its password field (it showed its hint). */
function rnLogin(text: string): string {
  const out = RN_LOGIN.replace(
    /text="Password"( resource-id="RNE__Input__text-input"[^>]*?password="true")/,
    `text="${text}"$1`,
  );
  assert(out !== RN_LOGIN, "the corpus password field was not found");
  return out;
}

/** Facebook's login screen with `text` in its (empty, hint-less) password field. */
function facebook(text: string): string {
  const out = FACEBOOK.replace(
    /text=""( content-desc="Contraseña,"[^>]*password="true")/,
    (_, r) => `text="${text}"${r}`,
  );
  assert(out !== FACEBOOK, "the corpus password field was not found");
  return out;
}

/** Safari's address field turned into a secure text field whose value is `value`. */
function safari(value: string, placeholder = "Password"): string {
  const out = SAFARI.replace(
    /<XCUIElementTypeTextField type="XCUIElementTypeTextField" value="[^"]*"( name="TabBarItemTitle")/,
    `<XCUIElementTypeSecureTextField type="XCUIElementTypeSecureTextField" value="${value}" ` +
      `placeholderValue="${placeholder}"$1`,
  );
  assert(out !== SAFARI, "the corpus text field was not found");
  const at = out.indexOf("<XCUIElementTypeSecureTextField");
  const end = out.indexOf("</XCUIElementTypeTextField>", at);
  return out.slice(0, end) + "</XCUIElementTypeSecureTextField>" +
    out.slice(end + "</XCUIElementTypeTextField>".length);
}

function scrub(xml: string, secrets: string[] = []): string {
  const s = new SecretScrubber();
  for (const secret of secrets) s.add(secret);
  return new TextDecoder().decode(s.hierarchy(new TextEncoder().encode(xml), "application/xml"));
}

/** The password fields' text (Android) or value (iOS) of a scrubbed page source, parsed. */
function passwordTexts(xml: string): string[] {
  return [...walk(parseHierarchy(xml).root)].flatMap(([n]) =>
    n.password ? [n.text ?? n.value ?? ""] : []
  );
}

Deno.test("SecretScrubber.hierarchy() stores a masked Android password field the same whatever the password's length, secret typed or not", () => {
  for (const screen of [rnLogin, facebook]) {
    for (const secrets of [[], ["abc"], ["hunter22hunter22"]]) {
      const short = scrub(screen("•••"), secrets);
      const long = scrub(screen("•".repeat(16)), secrets);
      const stars = scrub(screen("*".repeat(9)), secrets);
      const dots = scrub(screen("●".repeat(5)), secrets);
      assertEquals(short, long);
      assertEquals(short, stars);
      assertEquals(short, dots);
      assertEquals(passwordTexts(short), ["[redacted]"]);
      // nothing else of the page source changed
      assertEquals(short, screen("[redacted]"));
    }
  }
  // a field showing its hint, or empty, keeps it: no length there to hide
  assertEquals(scrub(RN_LOGIN), RN_LOGIN);
  assertEquals(scrub(RN_LOGIN, ["abc"]), RN_LOGIN);
  assertEquals(scrub(FACEBOOK), FACEBOOK);
  assertEquals(scrub(FACEBOOK, ["abc"]), FACEBOOK);
});

Deno.test("SecretScrubber.hierarchy() stores a filled iOS secure text field's value as [redacted], its placeholder kept", () => {
  for (const secrets of [[], ["abc"]]) {
    const short = scrub(safari("•••"), secrets);
    const long = scrub(safari("•".repeat(16)), secrets);
    assertEquals(short, long);
    assertEquals(short, safari("[redacted]"));
    assertEquals(passwordTexts(short), ["[redacted]"]);
    // empty, or showing its placeholder: kept as it is
    assertEquals(scrub(safari("Password"), secrets), safari("Password"));
    assertEquals(scrub(safari(""), secrets), safari(""));
  }
});

/**
 * A blaze session on the stand-in serving the React Native login screen whose password field
 * shows `password` masked; types it, snapshots. Hands back the stored page sources.
 */
async function blazeAndroid(password: string): Promise<{ blobs: string[]; snapshot: string }> {
  const standin = startAndroidStandin({
    screens: { login: rnLogin("•".repeat(password.length)) },
  });
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_mask_" });
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
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
    const typed = await s.call("type", { x: 590, y: 1093, text: password });
    assert(typed.ok, typed.error);
    const snapshot = (await s.call("snapshot", {})).output;
    await s.end("completed");
    const blobs: string[] = [];
    for await (const e of store.readStream(s.streamId)) {
      if (e.type !== "ScreenCaptured") continue;
      blobs.push(new TextDecoder().decode((await store.getBlob(e.data.hierarchy.hash)).bytes));
    }
    return { blobs, snapshot };
  } finally {
    await driver.close();
    store.close();
    await standin.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("BlazeSession on Android stores every page source (before and after the typing) with the masked password field as [redacted]", async () => {
  const short = await blazeAndroid("abc");
  const long = await blazeAndroid("hunter22hunter22");
  assert(short.blobs.length >= 2, `${short.blobs.length} page sources stored`);
  assertEquals(short.blobs, long.blobs);
  for (const xml of short.blobs) {
    assertEquals(passwordTexts(xml), ["[redacted]"]);
    assert(!xml.includes("•"), "a mask character is stored");
    assertStringIncludes(xml, 'text="Login / Sign up Form"');
  }
  assertEquals(short.snapshot, long.snapshot);
});
