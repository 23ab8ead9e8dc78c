/**
 * Where files go: every command run with `CAIRN_DB` in a temp folder, from another working
 * folder, and without `--out`/`--screenshots`, writes under the database's folder
 * (`screenshots/`, `exports/`, `trails/`, `blobs/`) and creates nothing in the working folder:
 * blaze (start, screenshot, end), record, replay (one trail and a suite), history --at, show,
 * export, optimize, ingest of a Maestro flow. Real processes, real Chromium, real SQLite.
 */
import { join } from "node:path";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../_fixtures/assert.ts";
import { withDeadline } from "../../drivers/with_deadline.ts";
import { serveFolder } from "../_fixtures/web_server.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function cairn(args: string[], cwd: string, env: Record<string, string>): Promise<Run> {
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", MAIN, ...args],
    cwd,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { code: o.code, stdout: d.decode(o.stdout), stderr: d.decode(o.stderr) };
}

/** `cairn record --headless` until it records, then `stop` on stdin (bounded). */
async function recordAndStop(url: string, cwd: string, env: Record<string, string>): Promise<Run> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", MAIN, "record", "--headless", "--url", url, "--prompt", "Look"],
    cwd,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stderr = new Response(child.stderr).text();
  let out = "";
  try {
    for (let i = 0; i < 200 && !/Recording session/.test(out); i++) {
      const { value, done } = await withDeadline(
        reader.read(),
        60_000,
        () => new Error(`record printed nothing more in 60 s: ${out}`),
      );
      if (done) break;
      out += value;
    }
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode("stop\n"));
    await w.close();
    for (let i = 0; i < 200; i++) {
      const { value, done } = await withDeadline(reader.read(), 60_000, () => new Error(out));
      if (done) break;
      out += value;
    }
    const status = await child.status;
    return { code: status.code, stdout: out, stderr: await stderr };
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* exited */ }
    await child.status;
    await reader.cancel().catch(() => {});
    await stderr.catch(() => "");
  }
}

Deno.test("with CAIRN_DB set, no command writes into the working folder: files go beside the database", async () => {
  const server = serveFolder();
  const dir = await Deno.makeTempDir({ prefix: "cairn-files-" });
  const work = join(dir, "work");
  const data = join(dir, "data");
  const db = join(data, "cairn.db");
  await Deno.mkdir(work);
  const env = { CAIRN_DB: db, CI: "1" };
  const run = (...args: string[]) => cairn(args, work, env);
  let blazeStarted = false;
  try {
    // blaze: a session, a screenshot, its end (recording and capture files)
    const start = await run(
      "blaze",
      "start",
      "--url",
      server.url + "cart.html",
      "--prompt",
      "Look",
    );
    assertEquals(start.code, 0, start.stderr);
    blazeStarted = true;
    const id = start.stdout.match(/Session (\S+) started/)?.[1];
    assert(id, start.stdout);
    assertEquals((await run("blaze", "snapshot")).code, 0);
    const shot = await run("blaze", "screenshot");
    assertEquals(shot.code, 0, shot.stderr);
    assertStringIncludes(shot.stdout, `Wrote ${join(data, "screenshots")}/`);
    // -o is --out, in blaze as in every command
    const named = await run("blaze", "screenshot", "-o", join(dir, "named.png"));
    assertEquals(named.code, 0, named.stderr);
    assert((await Deno.stat(join(dir, "named.png"))).size > 0, named.stdout);
    const end = await run("blaze", "end", "--reason", "completed");
    assertEquals(end.code, 0, end.stderr);
    blazeStarted = false;
    assertStringIncludes(end.stdout, `Wrote ${join(data, "exports")}/`);
    const capture = join(data, "exports", `${id}.capture.json`);
    assert(await Deno.stat(capture).then(() => true, () => false), end.stdout);

    // history --at: the screenshot of that state as a blob file beside the database
    const at = await run("history", id, "--at", "1000000"); // its final state
    assertEquals(at.code, 0, at.stderr);
    assertMatch(at.stdout, new RegExp(`${join(data, "blobs")}/\\w+\\.png`));

    // show, export (to stdout), optimize (its trail cache beside the database)
    const show = await run("show", id);
    assertEquals(show.code, 0, show.stderr);
    assertEquals((await run("export", id, "--format", "recording_v1")).code, 0);
    const opt = await run("optimize", id);
    assertEquals(opt.code, 0, opt.stderr);
    assert([...Deno.readDirSync(join(data, "trails"))].length > 0, "the trail cache in trails/");

    // replay: one trail, then a suite, each failing a tap (a screenshot each)
    const trail = join(dir, "t.trail.yaml");
    await Deno.writeTextFile(
      trail,
      `config: { platform: web }\ntrail:\n  - step: Missing\n    recording:\n      - tap: { selector: { id: nowhere } }\n`,
    );
    await Deno.copyFile(trail, join(dir, "u.trail.yaml"));
    const url = ["--url", server.url + "cart.html", "--timeout", "500"];
    assertEquals((await run("replay", trail, ...url)).code, 1);
    assertEquals((await run("replay", trail, join(dir, "u.trail.yaml"), ...url)).code, 1);
    assert([...Deno.readDirSync(join(data, "screenshots"))].length >= 3, "replay's screenshots");

    // ingest of a Maestro flow: its trail under trails/
    const flow = join(dir, "notes.yaml");
    await Deno.writeTextFile(
      flow,
      `appId: com.example.notes\n---\n- launchApp\n- tapOn:\n    id: "add"\n- inputText: "Milk"\n- assertVisible: "Milk"\n`,
    );
    const ingest = await run("ingest", flow);
    assertEquals(ingest.code, 0, ingest.stderr);
    assertStringIncludes(ingest.stdout, join(data, "trails"));

    // record: the recording in exports/
    const rec = await recordAndStop(server.url + "cart.html", work, env);
    assertEquals(rec.code, 0, rec.stderr);
    assertMatch(rec.stdout, new RegExp(`wrote ${join(data, "exports")}/vw-ax-human-\\S+\\.json`));

    assertEquals(
      [...Deno.readDirSync(work)].map((e) => e.name),
      [],
      "nothing in the working folder",
    );
  } finally {
    if (blazeStarted) await run("blaze", "end", "--reason", "failed").catch(() => {});
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
