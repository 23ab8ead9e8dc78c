/**
 * What a blaze session stores of a screen's hierarchy once a secret is known: an Android page
 * source (a real corpus dump served by the Appium STAND-IN, driven by the real Android driver)
 * and a hierarchy of no format the scrubber knows (a real Playwright ARIA snapshot; real
 * Chromium's hierarchy under a text media type) keep no secret in the real SQLite file.
 */
import { AndroidDriver } from "../../../drivers/android/android_driver.ts";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import type { Driver } from "../../../drivers/driver.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SecretScrubber } from "../../../drivers/secret_scrubber.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import type { StoredEvent } from "../../../events/schemas.ts";
import { parseHierarchy } from "../../../engine/screens/hierarchy.ts";
import { walk } from "../../../engine/screens/ui_node.ts";
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import { assertNoSecret, dbBytes } from "../../_fixtures/secret_forms.ts";
import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";

const CORPUS = new URL("../../../../shared/corpus/", import.meta.url);
const LOGIN = Deno.readTextFileSync(
  new URL("android/uiautomator_wdio_demo_reactnative_login.xml", CORPUS),
);
const ARIA = Deno.readTextFileSync(
  new URL("playwright-aria/error-context_talentsphere_login_with-refs.aria.yml", CORPUS),
);

/** A password with characters XML and url encodings treat specially. */
const SECRET = "Tr0ub4dor&3<x>";
const PASSWORD_FIELD = { x: 590, y: 1093 }; // EditText content-desc input-password
const LOGIN_BUTTON = { x: 539, y: 1514 }; // ViewGroup content-desc button-LOGIN

/** Escapes an XML attribute value. */
function xmlAttr(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

/**
 * The corpus login screen after signing in, as an app that echoes the password would show it:
 * the password field revealed (its text the secret), a text and a content description that
 * carry it, a hint equal to it, and a password field that shows more than the secret unmasked.
 */
function echoingScreen(): string {
  const s = xmlAttr(SECRET);
  const out = LOGIN
    .replace(
      'text="When the device has Touch/FaceID',
      `text="Signed in with ${s}. When the device has Touch/FaceID`,
    )
    .replace(
      /content-desc="button-LOGIN"([^>]*?) hint="[^"]*"/,
      `content-desc="${s}"$1 hint="${s}"`,
    )
    .replace(
      /text="Password"( resource-id="RNE__Input__text-input"[^>]*?)password="true"/,
      `text="${s}"$1password="false"`,
    )
    .replace(
      /text="Email"( resource-id="RNE__Input__text-input"[^>]*?)password="false"/,
      `text="${s}-and-more"$1password="true"`,
    );
  assertEquals(out.split(s).length - 1, 5, "the secret is in the screen five times");
  return out;
}

Deno.test("BlazeSession on Android stores a corpus page source with the typed password taken out of text, content-desc and hint, ids and structure kept", async () => {
  const standin = startAndroidStandin({
    screens: { login: LOGIN, signedIn: echoingScreen() },
    onTap: (_p, hit, screen) => {
      for (let n = hit; n; n = n.parent) {
        if (screen === "login" && n.attrs["content-desc"] === "button-LOGIN") return "signedIn";
      }
      return undefined;
    },
  });
  const dir = await Deno.makeTempDir({ prefix: "cairn_android_scrub_" });
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
    const typed = await s.call("type", { ...PASSWORD_FIELD, text: SECRET });
    assert(typed.ok, typed.error);
    assertStringIncludes(typed.output, 'Typed "[redacted]"');
    assert((await s.call("tap", LOGIN_BUTTON)).ok);
    assertEquals(standin.screen(), "signedIn");
    const snap = await s.call("snapshot", {});
    assertNoSecret(snap.output, SECRET, "the snapshot the agent was given");
    await s.end("completed");

    const events: StoredEvent[] = [];
    for await (const e of store.readStream(s.streamId)) events.push(e);
    const blobs: string[] = [];
    for (const e of events) {
      assertNoSecret(JSON.stringify(e), SECRET, `${e.type} #${e.streamVersion}`);
      if (e.type !== "ScreenCaptured") continue;
      blobs.push(new TextDecoder().decode((await store.getBlob(e.data.hierarchy.hash)).bytes));
    }
    const echoed = blobs.filter((b) => b.includes("Signed in with"));
    assert(echoed.length > 0, "no screen after signing in was stored");
    for (const xml of blobs) assertNoSecret(xml, SECRET, "a stored page source");
    for (const xml of echoed) {
      assertStringIncludes(xml, 'text="Signed in with [redacted]. When the device');
      assert(
        /content-desc="\[redacted\]"[^>]* hint="\[redacted\]"/.test(xml),
        "content-desc, hint",
      );
      // the revealed field, and a password field showing more than the secret
      assertEquals(xml.split('text="[redacted]" resource-id="RNE__Input__text-input"').length, 3);
      // structure is kept: the blob parses, ids and the other content are as served
      const screen = parseHierarchy(xml);
      const ids = [...walk(screen.root)].flatMap(([n]) => n.resourceId ?? []);
      assertEquals(ids.filter((id) => id === "RNE__Input__text-input").length, 2);
      assertStringIncludes(xml, 'text="Login / Sign up Form"');
      assertStringIncludes(xml, 'content-desc="input-password"');
    }
    // the screens before any secret was typed are stored as served
    assert(blobs.includes(LOGIN));
  } finally {
    await driver.close();
    store.close();
    await standin.close();
  }
  try {
    const bytes = await dbBytes(dbPath);
    assertStringIncludes(bytes, "Login / Sign up Form"); // the scan does see stored screens
    assertNoSecret(bytes, SECRET, "the SQLite file");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SecretScrubber.hierarchy() scrubs a real ARIA snapshot, a format it cannot parse, as text", () => {
  const password = "TestPassword123!";
  assertStringIncludes(ARIA, `text: ${password}`);
  const scrubber = new SecretScrubber();
  scrubber.add(password);
  scrubber.add("ob"); // short: as a whole token only ("jobseeker" keeps its letters)
  const out = new TextDecoder().decode(
    scrubber.hierarchy(new TextEncoder().encode(ARIA), "text/yaml"),
  );
  assertNoSecret(out, password, "the stored ARIA snapshot");
  assertStringIncludes(out, "- text: [redacted]");
  assertStringIncludes(out, 'textbox "Password" [active] [ref=e15]:');
  assertStringIncludes(out, "- text: jobseeker@talentsphere.test");
  assertEquals(out.split("\n").length, ARIA.split("\n").length);
  // a secret glued inside a longer word of text it cannot parse is taken out too
  const glued = new SecretScrubber();
  glued.add("Password123");
  const gluedOut = new TextDecoder().decode(
    glued.hierarchy(new TextEncoder().encode(ARIA), "text/plain"),
  );
  assertNoSecret(gluedOut, "Password123", "the stored ARIA snapshot");
  assertStringIncludes(gluedOut, "- text: Test[redacted]!");
});

Deno.test("BlazeSession stores a hierarchy of a media type it cannot parse (real Chromium's, as text) with no typed secret", async () => {
  const server = serveFolder();
  const dir = await Deno.makeTempDir();
  const dbPath = `${dir}/cairn.db`;
  const store = SqliteEventStore.open(dbPath);
  const chrome = await ChromeDriver.launch();
  // the real browser, its hierarchy handed over as plain text (JSON that fails to parse as such)
  const driver = new Proxy(chrome, {
    get(target, key) {
      if (key === "snapshot") {
        return async () => {
          const snap = await target.snapshot();
          const bytes = new Uint8Array([
            ...new TextEncoder().encode("hierarchy\n"),
            ...snap.raw.bytes,
          ]);
          return { ...snap, raw: { ...snap.raw, bytes, mediaType: "text/plain" } };
        };
      }
      const v = Reflect.get(target, key, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  }) as unknown as Driver;
  const NOTE = "my-private-note-42";
  try {
    const s = await BlazeSession.start(driver, store, {
      url: server.url + "login.html",
      prompt: "x",
      settleMs: 50,
      screenshots: false,
    });
    const snap = (await s.call("snapshot", {})).output;
    assert((await s.call("type", { ref: refIn(snap, "Secret note"), text: NOTE })).ok);
    assert((await s.call("type", { ref: refIn(snap, "Password"), text: "pw" })).ok);
    await s.call("snapshot", {});
    await s.end();
    let hierarchies = 0;
    for await (const e of store.readStream(s.streamId)) {
      if (e.type !== "ScreenCaptured") continue;
      const text = new TextDecoder().decode((await store.getBlob(e.data.hierarchy.hash)).bytes);
      assert(text.startsWith("hierarchy\n"), text.slice(0, 100));
      assertNoSecret(text, NOTE, "a stored hierarchy");
      hierarchies++;
    }
    assert(hierarchies >= 3);
  } finally {
    store.close();
    await chrome.close();
    await server.close();
  }
  try {
    assertNoSecret(await dbBytes(dbPath), NOTE, "the SQLite file");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SecretScrubber.hierarchy() hides a corpus password field's text, masked or not, unless it is the hint", () => {
  const source = Deno.readTextFileSync(
    new URL("android/appium-source_facebook_login_es.xml", CORPUS),
  );
  const field = /(<android\.widget\.EditText[^>]*?)text=""([^>]*?password="true"[^>]*?)hint=""/;
  assert(field.test(source));
  const scrubber = new SecretScrubber();
  scrubber.add("a-known-secret"); // a session that knows a secret scrubs its hierarchies
  const cases: [text: string, hint: string, stored: string][] = [
    ["\u2022\u2022\u2022\u2022\u2022\u2022", "", "[redacted]"], // masked: its length shows
    ["\u2022\u2022\u2022\u2022\u2022s", "", "[redacted]"], // the last character shown
    ["hunter2", "", "[redacted]"], // a device that does not mask
    ["Contraseña", "Contraseña", "Contraseña"], // the hint shown as the text of an empty field
    ["", "", ""],
  ];
  for (const [text, hint, stored] of cases) {
    const xml = source.replace(field, `$1text="${text}"$2hint="${hint}"`);
    const out = new TextDecoder().decode(
      scrubber.hierarchy(new TextEncoder().encode(xml), "application/xml"),
    );
    assertEquals(out, xml.replace(`text="${text}"`, `text="${stored}"`), text);
  }
});
