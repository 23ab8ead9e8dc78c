import { assert, assertEquals, assertStringIncludes } from "./assert.ts";
import type { Page } from "puppeteer-core";
import { launchChrome } from "../drivers/chrome/launch.ts";
import { SqliteEventStore } from "../events/sqlite_event_store.ts";
import { RecordingV1 } from "../engine/formats/recording_v1.ts";
import { serveFolder } from "./web_server.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;

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
    const { value, done } = await reader.read();
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

async function recordThroughCli(stop: Stop, extra: string[] = []) {
  const dir = await Deno.makeTempDir();
  const server = serveFolder();
  const browser = await launchChrome();
  const out = `${dir}/rec.json`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
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
      browser.browser.wsEndpoint(),
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
    const page = (await browser.browser.pages())[0]!;
    for (let i = 0; i < 50 && !page.url().endsWith("cart.html"); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
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
    return { recording, id: id!, kept, stdout: seen.join("\n"), stderr: errors };
  } finally {
    await reader.cancel().catch(() => {});
    await stderr.catch(() => "");
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.status;
    await browser.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("cairn record stops on stdin and writes a human recording_v1 with every click", async () => {
  const { recording, id, kept } = await recordThroughCli("stdin");
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
  const { recording } = await recordThroughCli("sigint");
  assertEquals(recording.summary?.action_count, 2);
});
