/**
 * Records the example the way a person records: `cairn record` with a headed Chromium on an Xvfb
 * display, driven with real OS input (xdotool moves the mouse, clicks, types and presses keys,
 * Ctrl+T, Ctrl+L and Ctrl+1 included), on the pages of `site/` served from 127.0.0.1. The person
 * signs in (the password is stored as `[redacted]`), adds a note, opens the help page in a new
 * tab by typing its address, goes back to the first tab and signs out. Writes the recording
 * (`vw-ax-human-<session>-<time>.json`) and its optimized trail (`notes.trail.yaml`) here.
 *
 *     deno run -A examples/human_record/record.ts
 *
 * Only the layout is read with a headless browser first (where each control's centre is): every
 * input of the recording is the OS's.
 *
 * @module
 */
import { ChromeDriver } from "../../drivers/chrome/chrome_driver.ts";
import { recordingFileName } from "../../engine/formats/recording_v1.ts";
import { record, serveSite, type Site, startXvfb } from "../../tests/_fixtures/xvfb_person.ts";

const HERE = new URL(".", import.meta.url).pathname;
const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** The pages of `site/` by path. */
export async function sitePages(): Promise<Record<string, string>> {
  const pages: Record<string, string> = {};
  for await (const f of Deno.readDir(`${HERE}site`)) {
    pages[`/${f.name}`] = await Deno.readTextFile(`${HERE}site/${f.name}`);
  }
  return pages;
}

/** The centre of each control, read off the page (1280×800, as the recorder's viewport). */
async function centres(site: Site): Promise<Record<string, { x: number; y: number }>> {
  const driver = await ChromeDriver.launch();
  const out: Record<string, { x: number; y: number }> = {};
  try {
    const ids: Record<string, string[]> = {
      "/login.html": ["email", "password"],
      "/notes.html": ["note", "add", "signout"],
      "/help.html": ["ok"],
    };
    for (const [path, list] of Object.entries(ids)) {
      await driver.navigate(site.base + path);
      for (const id of list) {
        out[id] = await driver.page.$eval(`#${id}`, (el) => {
          const r = el.getBoundingClientRect();
          return { x: Math.round(r.x + r.width / 2), y: Math.round(r.y + r.height / 2) };
        });
      }
    }
  } finally {
    await driver.close();
  }
  return out;
}

if (import.meta.main) {
  const site = serveSite(await sitePages());
  const x = await startXvfb();
  const dir = await Deno.makeTempDir({ prefix: "cairn-example-" });
  try {
    const at = await centres(site);
    const r = await record(dir, x.name, site, "/login.html", async (p) => {
      await p.click(at.email!.x, at.email!.y);
      await p.type("ann@example.com");
      await p.click(at.password!.x, at.password!.y);
      await p.type("hunter2-example");
      await p.key("Return"); // signs in
      await p.waitTitle("Notes");
      await p.click(at.note!.x, at.note!.y);
      await p.type("Buy milk");
      await p.click(at.add!.x, at.add!.y);
      await p.key("ctrl+t");
      await p.waitTitle("New Tab");
      await p.address(`${site.base}/help.html`);
      await p.waitTitle("Help");
      await p.calibrate();
      await p.click(at.ok!.x, at.ok!.y);
      await p.key("ctrl+1");
      await p.waitTitle("Notes");
      await p.click(at.signout!.x, at.signout!.y);
    }, { prompt: "Sign in, add the note Buy milk, read the help, sign out" });
    const name = recordingFileName(r.rec);
    for await (const f of Deno.readDir(HERE)) {
      if (f.name.startsWith("vw-ax-human-")) await Deno.remove(HERE + f.name);
    }
    await Deno.copyFile(r.file, HERE + name);
    const opt = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        MAIN,
        "optimize",
        HERE + name,
        "--out",
        `${HERE}notes.trail.yaml`,
        "--db",
        `${dir}/cairn.db`,
      ],
    }).output();
    if (!opt.success) throw new Error(new TextDecoder().decode(opt.stderr));
    console.log(`wrote ${HERE}${name} (${r.actions.length} actions) and ${HERE}notes.trail.yaml`);
  } finally {
    await site.close();
    await x.close();
    await Deno.remove(dir, { recursive: true });
  }
}
