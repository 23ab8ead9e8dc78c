import { assert, assertEquals, assertStringIncludes } from "../../_fixtures/assert.ts";
import type { Browser, Page } from "puppeteer-core";
import { startUserChromium } from "../../_fixtures/user_chromium.ts";
import { withDeadline } from "../../../drivers/with_deadline.ts";
import { SqliteEventStore } from "../../../events/sqlite_event_store.ts";
import { RecordingV1 } from "../../../engine/formats/recording_v1.ts";
import { serveFolder } from "../../_fixtures/web_server.ts";
import { waitUntil } from "../../_fixtures/wait.ts";

const MAIN = new URL("../../../main.ts", import.meta.url).pathname;

/** Reads the child's stdout line by line until `match` shows up (bounded). */
async function waitForLine(
  reader: ReadableStreamDefaultReader<string>,
  seen: string[],
  match: RegExp,
): Promise<RegExpMatchArray> {
  for (let i = 0; i < 200; i++) {
    for (const line of seen) {
      const m = line.match(match);
      if (m) return m;
    }
    const { value, done } = await withDeadline(
      reader.read(),
      60_000,
      () => new Error(`Nothing more in 60 s, no line matching ${match} in:\n${seen.join("\n")}`),
    );
    if (done) break;
    seen.push(...value.split("\n"));
  }
  throw new Error(`No line matching ${match} in:\n${seen.join("\n")}`);
}

async function clickCentre(page: Page, css: string): Promise<void> {
  await page.waitForSelector(css, { visible: true, timeout: 5_000 });
  const at = await page.$eval(css, (el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  });
  await page.mouse.click(at.x, at.y, { delay: 40 });
  await new Promise((r) => setTimeout(r, 300));
}

/**
 * POSTs without a body as `curl -X POST URL` does: no Content-Length (fetch always sends one).
 *
 * @returns the response's status line
 */
async function postAsCurl(url: string): Promise<string> {
  const { hostname, port, pathname } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  await conn.write(
    new TextEncoder().encode(
      `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`,
    ),
  );
  const text = await new Response(conn.readable).text(); // closes the connection at its end
  return text.split("\r\n")[0]!;
}

type Stop = "stdin" | "http" | "sigint";

/** The tabs of a browser: url and inner width of each (in the browser's order). */
async function tabsOf(browser: Browser): Promise<{ url: string; width: number }[]> {
  const pages = await browser.pages();
  return await Promise.all(
    pages.map(async (p) => ({
      url: p.url(),
      width: await withDeadline(
        p.evaluate("innerWidth") as Promise<number>,
        10_000,
        () => new Error(`tab ${p.url()} did not answer in 10 s`),
      ),
    })),
  );
}

/**
 * Records cart.html through `cairn record --browser-ws` in a Chromium the test started with a
 * tab of its own already open at login.html (the user's), clicking in the tab cairn opens.
 */
async function recordThroughCli(stop: Stop, extra: string[] = []) {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const user = await startUserChromium(server.url + "login.html");
  const browser = await user.connect();
  let userTab = (await browser.pages())[0]!;
  await waitUntil("the user's tab on login.html", async () => {
    userTab = (await browser.pages())[0]!;
    return userTab.url().endsWith("login.html");
  }, { timeoutMs: 20_000 }).catch(() => {});
  const before = await tabsOf(browser);
  const out = `${dir}/rec.json`;
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
      server.url + "cart.html",
      "--prompt",
      "Add one apple",
      "--out",
      out,
      "--port",
      "0",
      "--browser-ws",
      user.ws,
      ...extra,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  const seen: string[] = [];
  try {
    const api = await waitForLine(reader, seen, /API on (http:\S+)/);
    const [, id] = await waitForLine(reader, seen, /Recording session (\S+) at/);
    let page: Page | undefined;
    for (let i = 0; i < 50 && page === undefined; i++) {
      page = (await browser.pages()).find((p) => p !== userTab && p.url().endsWith("cart.html"));
      if (!page) await new Promise((r) => setTimeout(r, 100));
    }
    assert(page, `no tab at cart.html: ${(await browser.pages()).map((p) => p.url())}`);
    // recording in a tab of its own: the user's tab is where it was, at its own size
    assertEquals((await tabsOf(browser)).filter((t) => t.url === before[0]!.url), before);
    await new Promise((r) => setTimeout(r, 300));
    await clickCentre(page, "[data-testid=inc-apple]");
    await clickCentre(page, "#checkout");
    if (stop === "stdin") {
      const w = child.stdin.getWriter();
      await w.write(new TextEncoder().encode("stop\n"));
      w.releaseLock();
    } else if (stop === "http") {
      assertEquals(await postAsCurl(`${api[1]}/v1/record/${id}/stop`), "HTTP/1.1 202 Accepted");
    } else child.kill("SIGINT");
    await waitForLine(reader, seen, /wrote /);
    const status = await child.status;
    for (let i = 0; i < 100; i++) {
      const { value, done } = await reader.read();
      if (done) break;
      seen.push(...value.split("\n"));
    }
    await child.stdin.close().catch(() => {});
    const errors = await stderr;
    assertEquals(status.code, 0, errors);
    const recording = RecordingV1.parse(JSON.parse(await Deno.readTextFile(out)));
    const store = SqliteEventStore.open(`${dir}/cairn.db`);
    const kept = (await store.streams("session-")).length;
    store.close();
    // on exit the browser runs on with the user's tab as it was; cairn's own tab is closed
    await waitUntil(
      "cairn's tab to close",
      async () => (await browser.pages()).length <= before.length,
      { timeoutMs: 20_000 },
    ).catch(() => {});
    const after = { running: user.running(), tabs: await tabsOf(browser), before };
    return { recording, id: id!, kept, stdout: seen.join("\n"), stderr: errors, after };
  } finally {
    // killed first: its stderr ends only when it exits (a failed assertion leaves it running)
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.status;
    await reader.cancel().catch(() => {});
    await stderr.catch(() => "");
    await browser.disconnect();
    await user.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("cairn record stops on stdin and writes a human recording_v1 with every click", async () => {
  const { recording, id, kept, after } = await recordThroughCli("stdin");
  // --browser-ws: recorded in a new tab; the user's tab and the browser are left running
  assert(after.running, "the user's browser was closed");
  assertEquals(after.tabs, after.before);
  assertEquals(after.tabs.length, 1);
  assert(after.tabs[0]!.url.endsWith("login.html"), after.tabs[0]!.url);
  assertEquals(recording.mode, "human");
  assertEquals(recording.id, id);
  assertEquals(recording.prompt?.text, "Add one apple");
  const actions = recording.timeline.filter((e) => e.kind === "human_action");
  assertEquals(actions.length, 2);
  assertEquals(recording.timeline.filter((e) => e.kind === "decision").length, 0);
  const first = actions[0]!;
  assert(first.kind === "human_action");
  assertEquals(first.step.target?.name, "Add one Apple");
  assertEquals(first.step.target?.selectors?.testId, "inc-apple");
  assertEquals(recording.summary?.ended_reason, "completed");
  assertEquals(kept, 1);
});

Deno.test("cairn record stops over HTTP and --ephemeral deletes the session's events", async () => {
  const { recording, kept, stdout, stderr } = await recordThroughCli("http", ["--ephemeral"]);
  assertEquals(recording.timeline.filter((e) => e.kind === "human_action").length, 2);
  assertStringIncludes(stdout, "--ephemeral");
  // a stop without Content-Length, as curl sends it: no Deno.serve warning about request.signal
  assertEquals(stderr.includes("request.signal"), false, stderr);
  assertEquals(kept, 0);
});

Deno.test("cairn record stops on Ctrl-C (SIGINT) and still writes the file", async () => {
  const { recording, after } = await recordThroughCli("sigint");
  assertEquals(recording.summary?.action_count, 2);
  assert(after.running, "the user's browser was closed");
  assertEquals(after.tabs, after.before);
});
