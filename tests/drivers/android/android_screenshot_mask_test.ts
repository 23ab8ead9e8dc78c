/**
 * Android screenshots keep nothing of a password: `AndroidDriver.screenshot()` paints over every
 * `password="true"` field of the page source taken with it. Against the Appium STAND-IN
 * (`tests/_fixtures/android_standin.ts`: no device can run here) serving a real page source of the corpus
 * (The App's login, whose password field is at [175,768][1265,899]) and a PNG made here with
 * "typed" pixels in its fields; the PNGs are decoded with sharp.
 */
import sharp from "sharp";
import { AndroidDriver } from "../../../drivers/android/android_driver.ts";
import { passwordFields } from "../../../drivers/android/mask_passwords.ts";
import { startAndroidStandin } from "../../_fixtures/android_standin.ts";
import { assert, assertEquals } from "../../_fixtures/assert.ts";

const THEAPP = Deno.readTextFileSync(
  new URL("../../../../shared/corpus/android/appium-source_theapp_login.xml", import.meta.url),
);
const NO_PASSWORD = Deno.readTextFileSync(
  new URL("../../../../shared/corpus/android/uiautomator_wikipedia_search.xml", import.meta.url),
);

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}
const PASSWORD: Rect = { x: 175, y: 768, w: 1090, h: 131 };
const USERNAME: Rect = { x: 175, y: 628, w: 1090, h: 131 };

/** A white screen of `w`×`h` with black "characters" (a dotted band) inside each rect. */
async function screen(w: number, h: number, rects: Rect[]): Promise<Uint8Array> {
  const px = new Uint8Array(w * h * 4).fill(255);
  for (const r of rects) {
    for (let y = r.y + Math.floor(r.h / 3); y < r.y + Math.floor((2 * r.h) / 3); y++) {
      for (let x = r.x + 10; x < r.x + r.w - 10; x += 3) {
        px.fill(0, (y * w + x) * 4, (y * w + x) * 4 + 3);
      }
    }
  }
  return new Uint8Array(
    await sharp(px, { raw: { width: w, height: h, channels: 4 } }).png().toBuffer(),
  );
}

/** How many pixels of `r` are black, and how many are the mask's grey. */
async function inside(png: Uint8Array, r: Rect): Promise<{ black: number; grey: number }> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({
    resolveWithObject: true,
  });
  let black = 0;
  let grey = 0;
  for (let y = r.y; y < r.y + r.h; y++) {
    for (let x = r.x; x < r.x + r.w; x++) {
      const o = (y * info.width + x) * 4;
      if (data[o] === 0 && data[o + 1] === 0 && data[o + 2] === 0) black++;
      if (data[o] === 128 && data[o + 1] === 128 && data[o + 2] === 128) grey++;
    }
  }
  return { black, grey };
}

async function shot(source: string, png: Uint8Array): Promise<Uint8Array> {
  const standin = startAndroidStandin({ screens: { s: source }, screenshot: png });
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    return await driver.screenshot();
  } finally {
    await driver.close();
    await standin.close();
  }
}

Deno.test("passwordFields() finds the password field of a real page source, and none where there is none", () => {
  assertEquals(passwordFields(THEAPP), { fields: [PASSWORD], width: 1440, height: 2392 });
  assertEquals(passwordFields(NO_PASSWORD).fields, []);
});

Deno.test("AndroidDriver.screenshot() paints over the password field and nothing else", async () => {
  const png = await screen(1440, 2392, [USERNAME, PASSWORD]);
  assert((await inside(png, PASSWORD)).black > 1000, "the test screen has typed pixels");
  const out = await shot(THEAPP, png);
  const meta = await sharp(out).metadata();
  assertEquals([meta.width, meta.height], [1440, 2392]);
  assertEquals(await inside(out, PASSWORD), { black: 0, grey: PASSWORD.w * PASSWORD.h });
  // the user name is no secret: its pixels are as they were
  assertEquals(await inside(out, USERNAME), await inside(png, USERNAME));
});

Deno.test("AndroidDriver.screenshot() scales the painted field to a screenshot of another size", async () => {
  // a device that returns its screenshot at half its page source's size (1440×2392)
  const user = { x: 88, y: 314, w: 545, h: 65 };
  const password = { x: 88, y: 384, w: 545, h: 65 };
  const png = await screen(720, 1196, [user, password]);
  const out = await shot(THEAPP, png);
  // [175,768][1265,899] at half size, out to whole pixels: [87,384][633,450]
  const painted = { x: 87, y: 384, w: 546, h: 66 };
  assertEquals(await inside(out, painted), { black: 0, grey: painted.w * painted.h });
  assertEquals(await inside(out, user), await inside(png, user));
});

Deno.test("AndroidDriver.screenshot() returns the screenshot as taken when no field is a password", async () => {
  const png = await screen(1080, 1920, [{ x: 100, y: 100, w: 300, h: 60 }]);
  assertEquals(await shot(NO_PASSWORD, png), png);
});

Deno.test("a snapshot and a screenshot taken together read the page source once", async () => {
  const standin = startAndroidStandin({
    screens: { s: THEAPP },
    screenshot: await screen(1440, 2392, [PASSWORD]),
  });
  const driver = await AndroidDriver.connect({ appium: standin.url });
  try {
    const before = standin.commands.length;
    const [snap, png] = await Promise.all([driver.snapshot(), driver.screenshot()]);
    assertEquals(snap.screen.width, 1440);
    assertEquals((await inside(png, PASSWORD)).black, 0);
    const sources = standin.commands.slice(before).filter((c) => c.path === "/source");
    assertEquals(sources.length, 1);
    // alone, a screenshot reads its own
    await driver.screenshot();
    assertEquals(standin.commands.filter((c) => c.path === "/source").length, 2);
  } finally {
    await driver.close();
    await standin.close();
  }
});
