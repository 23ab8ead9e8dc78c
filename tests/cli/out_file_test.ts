/**
 * `--out` of `cairn optimize` and `cairn validate` is checked before any work: a path that
 * cannot be written, a folder or the input file itself exits 2 naming `--out`; missing folders
 * are made, as `blaze end --out` and `history --sheet` do.
 */
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { cairn } from "../_fixtures/cli_run.ts";

const EXAMPLES = new URL("../../examples/", import.meta.url).pathname;

Deno.test("cairn optimize and validate --out: unwritable, a folder or the input exits 2 before any work", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-out-" });
  try {
    const capture = `${dir}/self.capture.json`;
    await Deno.copyFile(`${EXAMPLES}web_checkout.capture.json`, capture);
    await Deno.mkdir(`${dir}/web_checkout`);
    for await (const f of Deno.readDir(`${EXAMPLES}web_checkout`)) {
      await Deno.copyFile(`${EXAMPLES}web_checkout/${f.name}`, `${dir}/web_checkout/${f.name}`);
    }
    const original = await Deno.readTextFile(capture);
    const db = `${dir}/cairn.db`;
    for (const command of ["optimize", "validate"]) {
      for (
        const [out, says] of [
          ["/proc/nope/x.yaml", "--out: /proc/nope/x.yaml cannot be written"],
          [dir, `--out: ${dir} is a folder`],
          [capture, `--out: ${capture} is the input file`],
        ] as const
      ) {
        const url = command === "validate" ? ["--url", "http://127.0.0.1:9/"] : [];
        const r = await cairn([command, capture, "--db", db, "--out", out, ...url]);
        assertEquals(r.code, 2, `${command} --out ${out}: ${r.stderr}`);
        assertStringIncludes(r.stderr, says);
        assert(!r.stderr.includes("iteration"), r.stderr);
      }
    }
    assertEquals(await Deno.readTextFile(capture), original);
    const nested = `${dir}/a/b/trail.yaml`;
    const made = await cairn(["optimize", capture, "--db", db, "--out", nested]);
    assertEquals(made.code, 0, made.stderr);
    assertStringIncludes(await Deno.readTextFile(nested), "trail:");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--out under a file says the parent is a file; validate --trail naming a folder says it is one (exit 2)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-out-parent-" });
  try {
    const capture = `${dir}/self.capture.json`;
    await Deno.copyFile(`${EXAMPLES}web_checkout.capture.json`, capture);
    const db = `${dir}/cairn.db`;
    const file = `${dir}/notes.txt`;
    await Deno.writeTextFile(file, "a file, not a folder");
    for (const out of [`${file}/y.yaml`, `${file}/deeper/y.yaml`]) {
      for (const command of ["optimize", "validate"]) {
        const url = command === "validate" ? ["--url", "http://127.0.0.1:9/"] : [];
        const r = await cairn([command, capture, "--db", db, "--out", out, ...url]);
        assertEquals(r.code, 2, `${command} --out ${out}: ${r.stderr}`);
        assertStringIncludes(
          r.stderr,
          `--out: ${out} cannot be written: ${file} is a file, not a folder`,
        );
        assert(!r.stderr.includes("File exists"), r.stderr);
      }
    }
    assertEquals(await Deno.readTextFile(file), "a file, not a folder");
    const folder = await cairn([
      "validate",
      capture,
      "--db",
      db,
      "--url",
      "http://127.0.0.1:9/",
      "--trail",
      dir,
    ]);
    assertEquals(folder.code, 2, folder.stderr);
    assertStringIncludes(folder.stderr, `--trail: ${dir} is a folder; name a file`);
    const missing = await cairn(["validate", capture, "--db", db, "--trail", `${dir}/nope.yaml`]);
    assertEquals(missing.code, 2, missing.stderr);
    assertStringIncludes(missing.stderr, `${dir}/nope.yaml: no such file`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
