/**
 * A person at an X display, for the recorder's headed tests and the recorded example: an Xvfb
 * display, a site served from 127.0.0.1 whose pages report where the mouse is in them (the
 * calibration of screen → page coordinates, injected by the server), real OS input through
 * xdotool (mouse moves, clicks, keys, typing, the address bar), and `cairn record` run on the
 * display until the flow is done.
 *
 * @module
 */
import { assert } from "./assert.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

/** Injected into every page served: it reports where the mouse is (the calibration). */
const MOUSE = `<script>addEventListener("mousemove", (e) => {
  fetch("/mouse", { method: "POST", body: JSON.stringify([e.clientX, e.clientY]) });
});</script>`;

/** Waits `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** An Xvfb display of this process. */
export interface Display {
  /** `:N` */
  name: string;
  close: () => Promise<void>;
}

/**
 * Starts Xvfb (1280×1024) on a display no lock file names, and waits for its socket.
 *
 * @returns the display
 */
export async function startXvfb(): Promise<Display> {
  let n = 90 + (Deno.pid % 50);
  for (; n < 300; n++) {
    const taken = await Deno.stat(`/tmp/.X${n}-lock`).then(() => true, () => false);
    if (!taken) break;
  }
  const name = `:${n}`;
  const xvfb = new Deno.Command("Xvfb", {
    args: [name, "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  for (let i = 0; i < 50; i++) {
    if (await Deno.stat(`/tmp/.X11-unix/X${n}`).then(() => true, () => false)) break;
    await sleep(100);
  }
  return {
    name,
    close: async () => {
      xvfb.kill("SIGTERM");
      await xvfb.status;
    },
  };
}

/** A site served from 127.0.0.1. */
export interface Site {
  base: string;
  /** The last mouse position a page reported, and how many reports came. */
  mouse: { x: number; y: number; n: number };
  close: () => Promise<void>;
}

/**
 * Serves pages (path → the body's HTML, or a whole document) from 127.0.0.1 on a free port.
 *
 * @param pages the pages by path
 * @returns the site
 */
export function serveSite(pages: Record<string, string>): Site {
  const mouse = { x: 0, y: 0, n: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (r) => {
    const path = new URL(r.url).pathname;
    if (path === "/mouse") {
      const [x, y] = JSON.parse(await r.text()) as [number, number];
      Object.assign(mouse, { x, y, n: mouse.n + 1 });
      return new Response("ok");
    }
    const page = pages[path];
    if (page === undefined) return new Response("no", { status: 404 });
    const html = page.includes("<html")
      ? page.replace("</body>", `${MOUSE}</body>`)
      : `<!doctype html><html><head></head><body>${page}${MOUSE}</body></html>`;
    return new Response(html, { headers: { "content-type": "text/html" } });
  });
  return {
    base: `http://127.0.0.1:${server.addr.port}`,
    mouse,
    close: () => server.shutdown(),
  };
}

/** Runs xdotool on a display. */
export async function xdo(display: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("xdotool", { args, env: { DISPLAY: display } }).output();
  if (!out.success) {
    throw new Error(`xdotool ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** A person at the display: the mouse and keyboard, in page coordinates once calibrated. */
export class Person {
  #dx = 0;
  #dy = 0;
  constructor(readonly display: string, readonly site: Site) {}

  /** Finds where the page's (0, 0) is on the screen: moves the mouse, reads what the page saw. */
  async calibrate(): Promise<void> {
    for (let attempt = 0; attempt < 40; attempt++) {
      const n = this.site.mouse.n;
      const at = 500 + (attempt % 2);
      await xdo(this.display, "mousemove", String(at), String(at));
      for (let i = 0; i < 10 && this.site.mouse.n === n; i++) await sleep(50);
      if (this.site.mouse.n !== n && this.site.mouse.x > 0) {
        this.#dx = at - this.site.mouse.x;
        this.#dy = at - this.site.mouse.y;
        return;
      }
    }
    throw new Error("the page never saw the mouse");
  }

  async click(x: number, y: number): Promise<void> {
    await xdo(this.display, "mousemove", String(x + this.#dx), String(y + this.#dy));
    await sleep(80);
    await xdo(this.display, "click", "1");
    await sleep(900); // past a double click's window, as a person's pace
  }

  async key(...keys: string[]): Promise<void> {
    await xdo(this.display, "key", ...keys);
    await sleep(600);
  }

  async type(text: string): Promise<void> {
    await xdo(this.display, "type", "--delay", "15", text);
    await sleep(300);
  }

  /**
   * Waits (at most 10 s) until the browser window's title — the front tab's — starts with
   * `title`, as a person looks before acting: on a loaded machine a new tab or a page comes late.
   */
  async waitTitle(title: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const out = await new Deno.Command("xdotool", {
        args: ["search", "--name", `^${title.replace(/[^\w ]/g, ".")}`],
        env: { DISPLAY: this.display },
        stdout: "null",
        stderr: "null",
      }).output();
      if (out.success) return;
      await sleep(100);
    }
    throw new Error(`the browser never showed "${title}"`);
  }

  /** Types a url into the address bar (Ctrl+L) and goes there. */
  async address(url: string): Promise<void> {
    await this.key("ctrl+l");
    await this.type(url);
    await this.key("Return");
    await sleep(900);
  }
}

/** A recording made on the display. */
export interface Recorded {
  file: string;
  // deno-lint-ignore no-explicit-any
  rec: any;
  // deno-lint-ignore no-explicit-any
  actions: any[];
}

/** Records `flow` with `cairn record` on the display; the file and its human actions. */
export async function record(
  dir: string,
  display: string,
  site: Site,
  start: string,
  flow: (p: Person) => Promise<void>,
  options: { file?: string; prompt?: string } = {},
): Promise<Recorded> {
  const file = options.file ??
    `${dir}/rec-${start.replace(/\W/g, "")}-${crypto.randomUUID().slice(0, 6)}.json`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "-A",
      MAIN,
      "record",
      "--db",
      `${dir}/cairn.db`,
      "--url",
      site.base + start,
      "--prompt",
      options.prompt ?? "demo",
      "--out",
      file,
    ],
    env: { DISPLAY: display },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const deadline = Date.now() + 30_000;
  while (!seen.includes("Recording session") && Date.now() < deadline) {
    const { value, done } = await stdout.read();
    if (done) break;
    seen += value;
  }
  const stderr = new Response(child.stderr).text();
  let failure: unknown;
  try {
    assert(seen.includes("(headed)"), `cairn record did not start headed: ${seen}`);
    const person = new Person(display, site);
    await sleep(500);
    await person.calibrate();
    await flow(person);
    await sleep(500);
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode("stop\n"));
    await w.close();
  } catch (err) {
    failure = err;
    child.kill("SIGTERM");
  }
  const status = await child.status;
  for (let i = 0; i < 1000; i++) {
    const { value, done } = await stdout.read();
    if (done) break;
    seen += value;
  }
  const err = await stderr;
  if (failure) throw failure;
  if (!status.success) throw new Error(`cairn record exited ${status.code}: ${seen}\n${err}`);
  assert(!err.includes("problem"), err);
  const rec = JSON.parse(await Deno.readTextFile(file));
  // deno-lint-ignore no-explicit-any
  const actions = rec.timeline.filter((e: any) => e.kind === "human_action");
  return { file, rec, actions };
}
