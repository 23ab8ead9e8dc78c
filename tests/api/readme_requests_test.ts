/**
 * Every request example in the documentation is accepted: README.md and every Markdown page under
 * `docs/` (wherever the pages move), in three forms:
 * - a ```http block: a method and path, then the JSON body (if any);
 * - a `curl` command in a ```sh / ```bash / ```shell block that calls `/v1/…` (`-X`, `-d` JSON);
 * - a ```json block right after a line naming its request (`` `POST /v1/playbacks` body: ``).
 * Each is sent to the server where that needs no live browser session, else parsed by the very
 * schema the route checks the body with.
 *
 * @module
 */
import { assert, assertEquals, assertNotEquals } from "../_fixtures/assert.ts";
import { createApp } from "../../api/app.ts";
import { StartBody, ToolCallBody } from "../../api/blaze.ts";
import { playbackRegistry } from "../../api/playbacks.ts";
import { blazeRegistry } from "../../api/blaze.ts";
import { DriverError } from "../../drivers/driver.ts";
import { toolParams } from "../../runners/blaze/params.ts";
import { isToolName } from "../../runners/blaze/session.ts";
import { SqliteEventStore } from "../../events/sqlite_event_store.ts";

interface Example {
  /** Where it is written: `docs/http-api.md:33`. */
  at: string;
  method: string;
  path: string;
  body: unknown;
}

/** The repository's root: the nearest folder above this file with a deno.json. */
async function repoRoot(): Promise<string> {
  let dir = new URL(".", import.meta.url);
  for (let i = 0; i < 10; i++) {
    const found = await Deno.stat(new URL("deno.json", dir)).then(() => true, () => false);
    if (found) return dir.pathname;
    dir = new URL("..", dir);
  }
  throw new Error("no deno.json above the test");
}

/** README.md and every Markdown file under docs/, as paths relative to the root. */
async function docFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  const exists = (p: string) => Deno.stat(p).then((s) => s, () => undefined);
  if ((await exists(`${root}README.md`))?.isFile) files.push("README.md");
  const walk = async (rel: string, depth: number): Promise<void> => {
    if (depth > 5 || !(await exists(`${root}${rel}`))?.isDirectory) return;
    for await (const e of Deno.readDir(`${root}${rel}`)) {
      if (e.isDirectory) await walk(`${rel}/${e.name}`, depth + 1);
      else if (e.isFile && e.name.endsWith(".md")) files.push(`${rel}/${e.name}`);
    }
  };
  await walk("docs", 0);
  return files.sort();
}

/** A shell command line split into words (quotes as sh reads them; `$VAR` left as written). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
    words.push(m[1] ?? (m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3]!));
  }
  return words;
}

/** The request a `curl` command sends to `/v1/…`, or undefined for another command. */
function curlRequest(command: string): { method: string; path: string; body: unknown } | undefined {
  const words = shellWords(command.replace(/\s+#.*$/, ""));
  if (words[0] !== "curl") return undefined;
  let method: string | undefined;
  let data: string | undefined;
  let url: string | undefined;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === "-X" || w === "--request") method = words[++i];
    else if (/^(-d|--data|--data-raw|--data-binary|--json)$/.test(w)) data = words[++i];
    else if (/^(-H|--header|-o|--output|-u|--user|-w|--write-out)$/.test(w)) i++;
    else if (!w.startsWith("-")) url = w;
  }
  if (url === undefined) return undefined;
  const at = url.indexOf("/v1/");
  if (at < 0) return undefined;
  // a placeholder in the path ($ID, ${ID}) stands for an id
  const path = url.slice(at).replace(/\$\{?\w+\}?/g, "X");
  return {
    method: method ?? (data === undefined ? "GET" : "POST"),
    path,
    body: data === undefined ? undefined : JSON.parse(data),
  };
}

/** The request examples of one Markdown file. */
function examples(text: string, file: string): Example[] {
  const out: Example[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)\s*$/.exec(lines[i]!);
    if (!fence) continue;
    const start = i;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    const block = lines.slice(start + 1, end);
    const at = `${file}:${start + 1}`;
    const lang = fence[1]!.toLowerCase();
    if (lang === "http") {
      const m = /^(\w+) (\S+)$/.exec(block[0] ?? "");
      if (m) {
        const rest = block.slice(1).join("\n").trim();
        out.push({
          at,
          method: m[1]!,
          path: m[2]!,
          body: rest === "" ? undefined : JSON.parse(rest),
        });
      }
    } else if (lang === "sh" || lang === "bash" || lang === "shell") {
      // a command may go on over lines ending in a backslash
      for (const command of block.join("\n").replace(/\\\n\s*/g, " ").split("\n")) {
        const r = curlRequest(command.trim());
        if (r) out.push({ at, ...r });
      }
    } else if (lang === "json") {
      // a body after the line that names its request: "`POST /v1/playbacks` body:"
      let before = start - 1;
      while (before >= 0 && lines[before]!.trim() === "") before--;
      const named = /`(GET|POST|PUT|PATCH|DELETE) (\/v1\/[^`\s]+)`[^`]*:\s*$/.exec(
        lines[before] ?? "",
      );
      if (named) {
        out.push({ at, method: named[1]!, path: named[2]!, body: JSON.parse(block.join("\n")) });
      }
    }
    i = end;
  }
  return out;
}

Deno.test("every request example in README.md and docs/*.md is accepted by the server", async () => {
  const root = await repoRoot();
  const list: Example[] = [];
  for (const file of await docFiles(root)) {
    list.push(...examples(await Deno.readTextFile(`${root}${file}`), file));
  }
  // the HTTP section's five examples, wherever the pages put them
  assert(list.filter((e) => e.method === "POST").length >= 5, JSON.stringify(list));
  const store = SqliteEventStore.open(":memory:");
  // no browser: a body the route accepts gets as far as asking for one (502), never a 400
  const noBrowser = () => Promise.reject(new DriverError("no browser in this test"));
  blazeRegistry(store, { createDriver: noBrowser });
  playbackRegistry(store, { createDriver: noBrowser });
  const app = createApp({ store });
  try {
    for (const ex of list) {
      const tool = /^\/v1\/blaze\/sessions\/[^/]+\/tools(?:\/(\w+))?$/.exec(ex.path);
      if (tool) {
        // a tool call needs a live session: its body is checked as the session checks it
        const { tool: named, ...params } = tool[1] === undefined
          ? ToolCallBody.parse(ex.body) as Record<string, unknown>
          : { tool: tool[1], ...(ex.body as Record<string, unknown>) };
        assert(isToolName(String(named)), `${ex.at}: ${ex.path}: tool ${named}`);
        const parsed = toolParams("web")[named as "tap"].safeParse(params);
        assert(parsed.success, `${ex.at}: ${ex.path}: ${JSON.stringify(parsed.error?.issues)}`);
        continue;
      }
      if (ex.path === "/v1/blaze/sessions") {
        assert(StartBody.safeParse(ex.body).success, `${ex.at}: ${JSON.stringify(ex.body)}`);
      }
      const res = await app.request(ex.path, {
        method: ex.method,
        ...(ex.body === undefined
          ? {}
          : { headers: { "content-type": "application/json" }, body: JSON.stringify(ex.body) }),
      });
      // an event stream follows the log live: its status is the answer
      const streamed = (res.headers.get("content-type") ?? "").includes("event-stream");
      const text = streamed ? (await res.body?.cancel(), "(event stream)") : await res.text();
      const what = `${ex.at}: ${ex.method} ${ex.path}: ${res.status} ${text}`;
      assertNotEquals(res.status, 400, what);
      assert(res.status < 500 || res.status === 502, what);
      // the documentation shows the names of the contract, not the deprecated ones
      assertEquals(res.headers.get("deprecation"), null, what);
      if (ex.method === "POST" && ex.path.startsWith("/v1/streams/")) {
        assertEquals(res.status, 201, what);
      }
    }
  } finally {
    await playbackRegistry(store).close();
    store.close();
  }
});
