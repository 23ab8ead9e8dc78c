/**
 * `cairn --version`, "did you mean" for a mistyped command or flag, and the files replay and blaze
 * write without `--out`/`--screenshots` (screenshots, exports): beside the database, not in the
 * working folder.
 */
import { join } from "node:path";
import { assert, assertEquals, assertMatch } from "../_fixtures/assert.ts";
import { didYouMean } from "../../cli/did_you_mean.ts";
import { servePlaybackPages } from "../_fixtures/playback_server.ts";
import { blazeCli } from "../_fixtures/blaze_cli_run.ts";
import { serveFolder } from "../_fixtures/web_server.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const MAIN = `${ROOT}main.ts`;

async function cairn(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const o = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", MAIN, ...args],
    stdout: "piped",
    stderr: "piped",
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    ...(opts.env ? { env: opts.env } : {}),
  }).output();
  const d = new TextDecoder();
  return { code: o.code, stdout: d.decode(o.stdout), stderr: d.decode(o.stderr) };
}

Deno.test("didYouMean() suggests a close name and nothing for a far one", () => {
  assertEquals(didYouMean("repaly", ["replay", "record", "reproject"]), "replay");
  assertEquals(didYouMean("wokers", ["workers", "timeout"]), "workers");
  assertEquals(didYouMean("expot", ["export", "optimize"]), "export");
  assertEquals(didYouMean("junti", ["junit", "json"]), "junit");
  assertEquals(didYouMean("banana", ["replay", "export"]), undefined);
  assertEquals(didYouMean("x", ["db"]), undefined);
});

Deno.test("cairn --version, and did-you-mean on a mistyped command or flag (exit 2)", async () => {
  const v = await cairn(["--version"]);
  assertEquals(v.code, 0);
  assertMatch(v.stdout, /^cairn \d+\.\d+\.\d+ \(deno \d+\.\d+\.\d+\)\n$/);
  const cmd = await cairn(["repaly", "x.yaml"]);
  assertEquals(cmd.code, 2);
  assertEquals(
    cmd.stderr,
    `cairn: unknown command "repaly" (did you mean replay?) (see cairn --help)\n`,
  );
  const flag = await cairn(["replay", "x.yaml", "--wokers", "2"]);
  assertEquals(flag.code, 2);
  assertEquals(
    flag.stderr,
    "cairn replay: unknown flag --wokers (did you mean --workers?) (see cairn replay --help)\n",
  );
  const far = await cairn(["export", "x", "--banana"]);
  assertEquals(far.stderr, "cairn export: unknown flag --banana (see cairn export --help)\n");
});

Deno.test("replay's screenshots go beside the database CAIRN_DB names, not into the working folder", async () => {
  const server = servePlaybackPages();
  const dir = await Deno.makeTempDir({ prefix: "cairn-shots-" });
  try {
    const work = join(dir, "work");
    await Deno.mkdir(work);
    const trail = join(dir, "t.trail.yaml");
    await Deno.writeTextFile(
      trail,
      `config: { platform: web }\ntrail:\n  - step: Missing\n    recording:\n      - tap: { selector: { id: nowhere } }\n`,
    );
    const res = await cairn(
      ["replay", trail, "--url", server.url + "app.html", "--timeout", "500"],
      {
        cwd: work,
        env: { CAIRN_DB: join(dir, "data", "cairn.db") },
      },
    );
    assertEquals(res.code, 1, res.stderr);
    const shots = [...Deno.readDirSync(join(dir, "data", "screenshots"))];
    assert(shots.length > 0, "a screenshot of the failed tap beside the database");
    assertEquals([...Deno.readDirSync(work)], [], "nothing written into the working folder");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("blaze end and screenshot without --out write beside the database, not into the working folder", async () => {
  const server = serveFolder();
  const dir = await Deno.makeTempDir({ prefix: "cairn-blaze-files-" });
  const db = join(dir, "data", "cairn.db");
  await Deno.mkdir(join(dir, "data"));
  try {
    const start = await blazeCli(
      db,
      "start",
      "--url",
      server.url + "cart.html",
      "--prompt",
      "Look",
    );
    assertEquals(start.code, 0, start.stderr);
    const shot = await blazeCli(db, "screenshot");
    assertEquals(shot.code, 0, shot.stderr);
    assertMatch(
      shot.stdout,
      new RegExp(`Wrote ${join(dir, "data", "screenshots")}/screenshot-\\w+\\.png`),
    );
    const end = await blazeCli(db, "end", "--reason", "completed");
    assertEquals(end.code, 0, end.stderr);
    const files = [...Deno.readDirSync(join(dir, "data", "exports"))];
    assert(files.length > 0, "the recording and capture files in exports/ beside the database");
  } finally {
    await blazeCli(db, "end", "--reason", "failed").catch(() => {});
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("-o is --out in every command that writes a file; blaze's old -o for the step is refused, naming --step", async () => {
  for (const command of ["blaze", "record", "export", "optimize", "validate"]) {
    const help = await cairn([command, "--help"]);
    assertEquals(help.code, 0, help.stderr);
    assertMatch(help.stdout, /^\s+-o, --out (FILE|DIR)/m, command);
    assert(!/-o, --step/.test(help.stdout), command);
  }
  const dir = await Deno.makeTempDir({ prefix: "cairn-short-out-" });
  try {
    const db = join(dir, "cairn.db");
    // refused before any daemon is looked for: the step text would otherwise name a file
    for (
      const [args, what] of [
        [["tap", "ref=h6", "-o", "Add a coffee"], "file or folder"],
        [["screenshot", "-o", "Check the cart"], "PNG file"],
        [["end", "-o", "Sign in"], "folder"],
      ] as const
    ) {
      const res = await cairn(["blaze", ...args, "--db", db]);
      assertEquals(res.code, 2, res.stderr);
      assertEquals(
        res.stderr,
        `cairn blaze ${
          args[0]
        }: -o is --out (the ${what} a command writes, as in every command); for the step an action serves, use --step ${
          JSON.stringify(args.at(-1))
        }\n`,
      );
    }
    // -o as --out: taken (here: no session runs, so it goes no further)
    const end = await cairn(["blaze", "end", "-o", join(dir, "out"), "--db", db]);
    assertEquals(end.code, 2);
    assertMatch(end.stderr, /No blaze session is running/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
