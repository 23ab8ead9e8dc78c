/**
 * A capture's file references read only regular files inside its folder, size-capped and with
 * a timeout: `/dev/zero`, a FIFO, `../../etc/passwd`, `/proc/self/environ`, a symbolic link out
 * of the folder, a directory and a file over `--max-file-size` are each refused at once with
 * exit 2 naming the action's field and the path, and nothing is stored (a real SQLite file);
 * `--allow-outside` reads an outside file.
 */
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { cairn } from "../_fixtures/cli_run.ts";

const XML = '<hierarchy rotation="0"><node index="0" text="Add item" ' +
  'class="android.widget.Button" package="com.example" clickable="true" enabled="true" ' +
  'bounds="[0,0][200,100]" /></hierarchy>';

function capture(file: string) {
  return JSON.stringify({
    format: "cairn.capture/v1",
    platform: "android",
    mode: "agent",
    actions: [
      { action: "tap", coordinates: { x: 100, y: 50 }, viewHierarchy: { file } },
    ],
  });
}

Deno.test("capture file references: outside paths, devices, FIFOs, /proc, links, folders and big files are refused with exit 2", async () => {
  const root = await Deno.makeTempDir({ prefix: "cairn-capture-files-" });
  const dir = `${root}/capture`;
  await Deno.mkdir(`${dir}/screens`, { recursive: true });
  const db = `${root}/cairn.db`;
  try {
    await Deno.writeTextFile(`${dir}/screens/ok.xml`, XML);
    await Deno.writeTextFile(`${root}/outside.xml`, XML);
    await Deno.symlink(`${root}/outside.xml`, `${dir}/screens/link.xml`);
    await Deno.writeFile(`${dir}/screens/big.xml`, new Uint8Array(2 * 2 ** 20 + 1));
    const fifo = await new Deno.Command("mkfifo", { args: [`${dir}/screens/pipe.xml`] }).output();
    assertEquals(fifo.code, 0);
    const cases: [string, string, string[]?][] = [
      ["/dev/zero", "outside the capture's folder"],
      ["screens/pipe.xml", "not a regular file"],
      ["../../../../../../etc/passwd", "outside the capture's folder"],
      ["/proc/self/environ", "outside the capture's folder"],
      ["screens/link.xml", "outside the capture's folder"],
      ["screens", "not a regular file"],
      ["screens/big.xml", "over the limit of 1 MiB", ["--max-file-size", "1"]],
      ["/proc/self/environ", "system file", ["--allow-outside"]],
      ["/dev/zero", "system file", ["--allow-outside"]],
    ];
    for (const [ref, why, flags = []] of cases) {
      const file = `${dir}/c.capture.json`;
      await Deno.writeTextFile(file, capture(ref));
      const started = performance.now();
      const out = await cairn(["ingest", file, "--db", db, ...flags]);
      assertEquals(out.code, 2, `${ref}: ${out.stderr}`);
      assert(performance.now() - started < 15_000, `${ref} answered at once`);
      assertStringIncludes(out.stderr, "actions.0.viewHierarchy.file", ref);
      assertStringIncludes(out.stderr, JSON.stringify(ref), ref);
      assertStringIncludes(out.stderr, why, ref);
      assertEquals(out.stderr.trim().split("\n").length, 1, `one line: ${out.stderr}`);
    }
    // the file named on the command line itself: a device is refused before it is read
    const device = await cairn(["ingest", "/dev/zero", "--db", db]);
    assertEquals(device.code, 2, device.stderr);
    assertStringIncludes(device.stderr, "/dev/zero: is a device");
    const stored = async () =>
      JSON.parse((await cairn(["history", "--json", "--db", db])).stdout || '{"sessions":[]}')
        .sessions.length;
    assertEquals(await stored(), 0, "nothing stored");

    // controls: a file inside the folder, and an outside one with --allow-outside
    await Deno.writeTextFile(`${dir}/c.capture.json`, capture("screens/ok.xml"));
    const ok = await cairn(["ingest", `${dir}/c.capture.json`, "--db", db]);
    assertEquals(ok.code, 0, ok.stderr);
    await Deno.writeTextFile(`${dir}/c.capture.json`, capture("../outside.xml"));
    const allowed = await cairn(["ingest", `${dir}/c.capture.json`, "--allow-outside", "--db", db]);
    assertEquals(allowed.code, 0, allowed.stderr);
    assertEquals(await stored(), 2);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the same file rules and flags hold wherever a capture is read: replay (one file and a suite), optimize, validate", async () => {
  const root = await Deno.makeTempDir({ prefix: "cairn-capture-reads-" });
  const dir = `${root}/capture`;
  await Deno.mkdir(`${dir}/screens`, { recursive: true });
  const db = `${root}/cairn.db`;
  try {
    await Deno.writeTextFile(`${root}/outside.xml`, XML);
    await Deno.writeFile(`${dir}/screens/big.xml`, new Uint8Array(2 * 2 ** 20 + 1));
    const outside = `${dir}/outside.capture.json`;
    await Deno.writeTextFile(outside, capture("../outside.xml"));
    const big = `${dir}/big.capture.json`;
    await Deno.writeTextFile(big, capture("screens/big.xml"));
    const commands: [string, string[]][] = [
      ["replay", []],
      ["replay", [`${dir}/outside.capture.json`]], // two files: a suite
      ["optimize", []],
      ["validate", []],
    ];
    for (const [command, extra] of commands) {
      const what = `${command}${extra.length ? " (suite)" : ""}`;
      const out = await cairn([command, outside, ...extra, "--db", db]);
      assertEquals(out.code, 2, `${what}: ${out.stderr}`);
      assertStringIncludes(out.stderr, "actions.0.viewHierarchy.file", what);
      assertStringIncludes(out.stderr, '"../outside.xml"', what);
      assertStringIncludes(out.stderr, "outside the capture's folder", what);
      const capped = await cairn([command, big, ...extra, "--max-file-size", "1", "--db", db]);
      assertEquals(capped.code, 2, `${what}: ${capped.stderr}`);
      assertStringIncludes(capped.stderr, '"screens/big.xml"', what);
      assertStringIncludes(capped.stderr, "over the limit of 1 MiB", what);
    }
    // --allow-outside reads it: optimize projects the capture to a trail
    const allowed = await cairn(["optimize", outside, "--allow-outside", "--db", db]);
    assertEquals(allowed.code, 0, allowed.stderr);
    assertStringIncludes(allowed.stdout, "trail");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
