/**
 * `cairn replay` refuses, before a browser starts, a web trail it could only play on
 * about:blank and a `--url` that is not http(s).
 */
import { assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { cairn } from "../_fixtures/cli_run.ts";

Deno.test("cairn replay: no config.url and no --url, or a --url that is not http(s), exits 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-replay-input-" });
  try {
    const file = `${dir}/t.yaml`;
    await Deno.writeTextFile(
      file,
      "config:\n  platform: web\ntrail:\n  - step: Go\n    recording:\n      - click: { id: go }\n",
    );
    const db = `${dir}/cairn.db`;
    const noUrl = await cairn(["replay", file, "--db", db]);
    assertEquals(noUrl.code, 2, noUrl.stderr);
    assertStringIncludes(
      noUrl.stderr,
      `${file}: no url: the plan opens no page (its first action is a click, not a navigate); pass --url`,
    );
    const ftp = await cairn(["replay", file, "--db", db, "--url", "ftp://x"]);
    assertEquals(ftp.code, 2, ftp.stderr);
    assertStringIncludes(ftp.stderr, "--url: expected an http(s) url");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
