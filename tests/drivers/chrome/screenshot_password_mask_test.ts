/**
 * A stored screenshot shows no password's length: Chrome draws one dot a character in a filled
 * password field, so the driver hides those characters while it takes the screenshot (blaze
 * captures, playback and validation screenshots all come from `ChromeDriver.screenshot`). Real
 * Chromium on 127.0.0.1 pages, real SQLite blobs, the PNGs decoded with sharp.
 */
import sharp from "sharp";
import { BlazeSession } from "../../../runners/blaze/session.ts";
import { ChromeDriver } from "../../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { refIn } from "../../_fixtures/blaze_refs.ts";
import { assert, assertEquals } from "../../_fixtures/assert.ts";

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A PNG's RGBA pixels. */
async function decode(png: Uint8Array): Promise<{ data: Uint8Array; width: number }> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({
    resolveWithObject: true,
  });
  return { data: new Uint8Array(data), width: info.width };
}

/** The pixels of `r` (CSS px at ratio 1), row by row. */
function region(img: { data: Uint8Array; width: number }, r: Rect): Uint8Array {
  const rows: number[] = [];
  for (let y = Math.floor(r.y); y < Math.ceil(r.y + r.h); y++) {
    const from = (y * img.width + Math.floor(r.x)) * 4;
    rows.push(...img.data.subarray(from, from + Math.ceil(r.w) * 4));
  }
  return new Uint8Array(rows);
}

/** How many pixels of `r` are dark (text drawn there). */
function darkPixels(img: { data: Uint8Array; width: number }, r: Rect): number {
  const px = region(img, r);
  let n = 0;
  for (let i = 0; i < px.length; i += 4) if (px[i]! + px[i + 1]! + px[i + 2]! < 300) n++;
  return n;
}

/** The rect of the element `selector` matches (in the page's main document). */
async function rectOf(driver: ChromeDriver, selector: string): Promise<Rect> {
  return await driver.page.evaluate((sel: string) => {
    const r = document.querySelector(sel)!.getBoundingClientRect();
    return { x: r.x, y: r.y, w: r.width, h: r.height };
  }, selector);
}

/**
 * Types `password` into login.html's password field in a blaze session, then snapshots; hands
 * back the last stored screenshot and the rects of the field and its label's text.
 */
async function blazeShot(password: string, card = "", note = ""): Promise<{
  png: Uint8Array;
  field: Rect;
  label: Rect;
  email: Rect;
  pageColor: string;
  adopted: number;
}> {
  const dir = await Deno.makeTempDir({ prefix: "cairn_shot_mask_" });
  const server = serveFolder();
  const store = SqliteEventStore.open(`${dir}/cairn.db`);
  const driver = await ChromeDriver.launch();
  try {
    const s = await BlazeSession.start(driver, store, {
      url: server.url + "login.html",
      prompt: "Sign in",
    });
    const snap = (await s.call("snapshot", {})).output;
    const typed = await s.call("type", { ref: refIn(snap, "Password"), text: password });
    assert(typed.ok, typed.error);
    const fields = [["Email", "ada@example.com"], ["Card number", card], ["Secret note", note]];
    for (const [label, text] of fields as [string, string][]) {
      if (text === "") continue;
      const r = await s.call("type", { ref: refIn(snap, label), text });
      assert(r.ok, r.error);
    }
    assert((await s.call("snapshot", {})).ok);
    const field = await rectOf(driver, "#password");
    const email = await rectOf(driver, "#email");
    // the label's own text ("Password") sits left of the field
    const label = { x: 24, y: field.y, w: field.x - 24, h: field.h };
    const after = await driver.page.evaluate(() => ({
      pageColor: getComputedStyle(document.querySelector("#password")!).color,
      adopted: document.adoptedStyleSheets.length,
    }));
    await s.end();
    let png: Uint8Array | undefined;
    for await (const e of store.readStream(s.streamId)) {
      if (e.type === "ScreenCaptured" && e.data.screenshot) {
        png = (await store.getBlob(e.data.screenshot.hash)).bytes;
      }
    }
    assert(png, "no screenshot stored");
    return { png, field, label, email, ...after };
  } finally {
    await driver.close();
    await server.close();
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("BlazeSession's stored screenshots show the same password field whatever the password's length, the rest of the page unchanged", async () => {
  const short = await blazeShot("abc");
  const long = await blazeShot("hunter22hunter22");
  assertEquals(short.field, long.field);
  const [a, b] = [await decode(short.png), await decode(long.png)];
  // the field's pixels are the same: no dot a character, no caret after the last one
  const fieldA = region(a, short.field);
  const fieldB = region(b, long.field);
  assert(fieldA.length > 0);
  assert(fieldA.every((v, i) => v === fieldB[i]), "the password field's pixels differ");
  // and so is the whole picture: the label and the other fields are drawn as they were
  assert(a.data.every((v, i) => v === b.data[i]), "the screenshots differ outside the field");
  assert(darkPixels(a, short.label) > 20, "the label is not drawn");
  // the email field's value is still drawn
  assert(darkPixels(a, short.email) > 20, "the email is not drawn");
  // the page is as it was: its own text color, no style sheet left behind
  for (const run of [short, long]) {
    assertEquals(run.pageColor, "rgb(0, 0, 0)");
    assertEquals(run.adopted, 0);
  }
});

const SHADOW_PAGE = `<!doctype html>
<html><head><style>
body { font: 16px sans-serif; margin: 24px; }
input { font: inherit; padding: 4px; width: 240px; }
#loud { color: red !important; -webkit-text-fill-color: red !important; }
</style></head><body>
<p>Plain <input id="plain" type="password"></p>
<p>Loud <input id="loud" type="PASSWORD" style="color: blue"></p>
<p>Empty <input id="empty" type="password" placeholder="your password"></p>
<p>Visible <input id="text" type="text"></p>
<div id="host"></div>
<script>
const root = document.getElementById("host").attachShadow({ mode: "open" });
root.innerHTML = '<p>Shadow <input id="inner" type="password" style="font: 16px sans-serif; padding: 4px; width: 240px"></p>';
</script>
</body></html>`;

/** Screenshots of SHADOW_PAGE with every password field holding `password`. */
async function driverShot(
  driver: ChromeDriver,
  base: string,
  password: string,
): Promise<Uint8Array> {
  await driver.navigate(base + "shadow.html");
  await driver.page.evaluate((pw: string) => {
    for (const id of ["plain", "loud"]) {
      (document.getElementById(id) as HTMLInputElement).value = pw;
    }
    (document.getElementById("text") as HTMLInputElement).value = "shown text";
    const inner = document.getElementById("host")!.shadowRoot!.getElementById("inner");
    (inner as HTMLInputElement).value = pw;
    (inner as HTMLInputElement).focus();
    (inner as HTMLInputElement).select(); // a selection as wide as the password
  }, password);
  return await driver.screenshot();
}

Deno.test("ChromeDriver.screenshot hides the characters of password fields in shadow roots, selected, and styled !important, and nothing else", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn_shot_shadow_" });
  await Deno.writeTextFile(`${dir}/shadow.html`, SHADOW_PAGE);
  const server = serveFolder(dir);
  const driver = await ChromeDriver.launch();
  try {
    const a = await decode(await driverShot(driver, server.url, "abc"));
    const b = await decode(await driverShot(driver, server.url, "hunter22hunter22"));
    assert(a.data.every((v, i) => v === b.data[i]), "the screenshots differ");
    // what is not a filled password is still drawn: the text field's value, the placeholder
    const text = await rectOf(driver, "#text");
    const empty = await rectOf(driver, "#empty");
    assert(darkPixels(a, text) > 20, "the text field's value is not drawn");
    const placeholder = region(a, empty);
    let grey = 0;
    for (let i = 0; i < placeholder.length; i += 4) if (placeholder[i]! < 200) grey++;
    assert(grey > 20, "the placeholder is not drawn");
    // the page keeps its state: values, selection, focus, no sheet adopted
    const state = await driver.page.evaluate(() => {
      const root = document.getElementById("host")!.shadowRoot!;
      const inner = root.getElementById("inner") as HTMLInputElement;
      return {
        value: inner.value,
        selected: [inner.selectionStart, inner.selectionEnd],
        focused: root.activeElement === inner,
        sheets: document.adoptedStyleSheets.length + root.adoptedStyleSheets.length,
        loud: getComputedStyle(document.getElementById("loud")!).color,
      };
    });
    assertEquals(state, {
      value: "hunter22hunter22",
      selected: [0, 16],
      focused: true,
      sheets: 0,
      loud: "rgb(255, 0, 0)",
    });
  } finally {
    await driver.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("BlazeSession's stored screenshots show no card number or data-sensitive field's text: the same picture whatever was typed", async () => {
  const one = await blazeShot("abc", "4111111111111111", "first note");
  const two = await blazeShot("abc", "5500000000000004", "another secret note");
  const [a, b] = [await decode(one.png), await decode(two.png)];
  assert(a.data.every((v, i) => v === b.data[i]), "the screenshots differ");
});
