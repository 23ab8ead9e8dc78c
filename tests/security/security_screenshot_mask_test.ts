/**
 * Secrets stay out of screenshots whatever the page does with them (real Chromium, a page from
 * 127.0.0.1, a real SQLite file, the stored blob fetched from a real `cairn serve`): a password
 * typed in a blaze session, then shown by a "show password" toggle (`type=text`) and echoed by
 * the page as text, and a memory value marked secret that the page shows. In the stored
 * screenshot the field is drawn empty and each echo is painted over; the same state captured
 * without the masks (the control) shows them.
 */
import { assert, assertEquals } from "../_fixtures/assert.ts";
import { startServe } from "../_fixtures/cli_run.ts";
import { buttonRef, refIn } from "../_fixtures/blaze_refs.ts";
import { BlazeSession } from "../../runners/blaze/session.ts";
import { ChromeDriver } from "../../drivers/chrome/chrome_driver.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";

const TYPED = "Hunter2-violet-9041";
const KEY = "Key-5512-obsidian";

const PAGE = `<!doctype html><html><head><style>
  body { margin: 0; background: #fff; font: 24px monospace; }
  #pw { position: absolute; left: 20px; top: 20px; width: 400px; height: 40px; border: 0;
    outline: none; padding: 0 0 0 4px; font: 24px monospace; color: #000; background: #fff; }
  #echo { position: absolute; left: 20px; top: 100px; margin: 0; color: #000; }
  #key { position: absolute; left: 20px; top: 160px; margin: 0; color: #000; }
  #show { position: absolute; left: 20px; top: 240px; }
</style></head><body>
<input id="pw" type="password" aria-label="Password">
<p id="echo"></p>
<p id="key">API key: ${KEY}</p>
<button id="show" onclick="document.getElementById('pw').type = 'text'">Show password</button>
<script>
  const pw = document.getElementById('pw');
  pw.addEventListener('input', () => document.getElementById('echo').textContent = 'You typed ' + pw.value);
</script>
</body></html>`;

/** The boxes checked, in CSS pixels (the viewport is at device pixel ratio 1). */
interface Boxes {
  field: { x: number; y: number; w: number; h: number };
  echo: { x: number; y: number; w: number; h: number };
  key: { x: number; y: number; w: number; h: number };
}

/**
 * Counts, in each box of a PNG (decoded by Chromium), the dark pixels (text drawn in the field)
 * and the light pixels (text not painted over in the echoes).
 */
async function inspect(driver: ChromeDriver, png: Uint8Array, boxes: Boxes) {
  const b64 = btoa(Array.from(png, (c) => String.fromCharCode(c)).join(""));
  return await driver.page.evaluate(
    async (data: string, bx: Boxes) => {
      const img = await createImageBitmap(
        await (await fetch(`data:image/png;base64,${data}`)).blob(),
      );
      const canvas = new OffscreenCanvas(img.width, img.height);
      const ctx = canvas.getContext("2d")!;
      ctx.drawImage(img, 0, 0);
      const count = (r: { x: number; y: number; w: number; h: number }, dark: boolean) => {
        const px = ctx.getImageData(
          Math.ceil(r.x) + 1,
          Math.ceil(r.y) + 1,
          Math.floor(r.w) - 2,
          Math.floor(r.h) - 2,
        ).data;
        let n = 0;
        for (let i = 0; i < px.length; i += 4) {
          const lum = (px[i]! + px[i + 1]! + px[i + 2]!) / 3;
          if (dark ? lum < 128 : lum > 64) n++;
        }
        return n;
      };
      return {
        fieldDark: count(bx.field, true),
        echoLight: count(bx.echo, false),
        keyLight: count(bx.key, false),
      };
    },
    b64,
    boxes,
  );
}

Deno.test("a typed password stays masked in stored screenshots after a show-password toggle and where the page echoes it; a secret memory value shown as text is painted over", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-sec-mask-" });
  const db = `${dir}/cairn.db`;
  const web = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(PAGE, { headers: { "content-type": "text/html" } }),
  );
  const store = SqliteEventStore.open(db);
  const driver = await ChromeDriver.launch();
  let hash = "";
  let control: Uint8Array;
  let boxes: Boxes;
  try {
    const s = await BlazeSession.start(driver, store, {
      url: `http://127.0.0.1:${web.addr.port}/`,
      prompt: "Sign in",
      settleMs: 100,
      secretMemory: { key: KEY },
    });
    const snap = (await s.call("snapshot", {})).output;
    const typed = await s.call("type", { ref: refIn(snap, "Password"), text: TYPED });
    assert(typed.ok, typed.error);
    const shown = await s.call("tap", { ref: buttonRef(snap, "Show password") });
    assert(shown.ok, shown.error);
    assertEquals(
      await driver.page.evaluate(() => document.getElementById("pw")!.getAttribute("type")),
      "text",
    );
    await s.call("snapshot", {});
    boxes = await driver.page.evaluate(() => {
      const box = (r: DOMRect) => ({ x: r.left, y: r.top, w: r.width, h: r.height });
      const text = (id: string) => {
        const range = document.createRange();
        range.selectNodeContents(document.getElementById(id)!);
        return box(range.getBoundingClientRect());
      };
      return {
        field: box(document.getElementById("pw")!.getBoundingClientRect()),
        echo: text("echo"),
        key: text("key"),
      };
    });
    // the same state captured without the masks: what the stored screenshot would show
    const cdp = await driver.cdp();
    const raw = await cdp.send("Page.captureScreenshot", { format: "png" });
    control = Uint8Array.from(atob(raw.data), (c) => c.charCodeAt(0));
    await s.call("end", {});
    for await (const e of store.readStream(`session-${s.id}`)) {
      if (e.type === "ScreenCaptured" && e.data.screenshot) hash = e.data.screenshot.hash;
    }
  } catch (err) {
    await driver.close();
    throw err;
  } finally {
    store.close();
    await web.shutdown();
  }
  try {
    assert(hash !== "", "a screenshot was stored");
    const serve = await startServe(["--db", db], {}, dir);
    let stored: Uint8Array;
    try {
      const res = await fetch(`${serve.url}/v1/blobs/${hash}`);
      assertEquals(res.status, 200);
      stored = new Uint8Array(await res.arrayBuffer());
    } finally {
      serve.child.kill("SIGTERM");
      await serve.child.status;
    }
    await driver.page.goto("about:blank");
    const before = await inspect(driver, control, boxes);
    assert(
      before.fieldDark > 50,
      `control: the field shows the password (${JSON.stringify(before)})`,
    );
    assert(
      before.echoLight > 50 && before.keyLight > 50,
      `control: the echoes show (${JSON.stringify(before)})`,
    );
    const after = await inspect(driver, stored, boxes);
    assertEquals(after, { fieldDark: 0, echoLight: 0, keyLight: 0 });
  } finally {
    await driver.close();
    await Deno.remove(dir, { recursive: true });
  }
});
