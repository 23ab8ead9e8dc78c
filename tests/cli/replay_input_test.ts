/**
 * `cairn replay` refuses, before a browser starts, a web trail it could only play on
 * about:blank and a `--url` that is not http(s) (a local `file:` page needs `--allow-file-urls`).
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

Deno.test("cairn replay --url file:… plays a trail on a local copy of its site with --allow-file-urls, each recorded page found in the base page's folder", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-replay-file-url-" });
  try {
    await Deno.mkdir(`${dir}/site/shop`, { recursive: true });
    await Deno.writeTextFile(`${dir}/site/index.html`, "<h1>Local home</h1>");
    await Deno.writeTextFile(`${dir}/site/shop/cart.html`, "<h1>Local cart</h1>");
    const file = `${dir}/t.yaml`;
    await Deno.writeTextFile(
      file,
      [
        "config:",
        "  platform: web",
        "  url: https://shop.example/index.html",
        "trail:",
        "  - step: See the home page",
        "    recording:",
        "      - navigate: https://shop.example/index.html",
        '      - assertVisible: "Local home"',
        "  - step: Open the cart",
        "    recording:",
        "      - navigate: https://shop.example/shop/cart.html",
        '      - assertVisible: "Local cart"',
        "",
      ].join("\n"),
    );
    const db = `${dir}/cairn.db`;
    const base = `file://${dir}/site/index.html`;
    const refused = await cairn(["replay", file, "--db", db, "--url", base]);
    assertEquals(refused.code, 2, refused.stderr);
    assertStringIncludes(refused.stderr, "--allow-file-urls");
    const played = await cairn(["replay", file, "--db", db, "--url", base, "--allow-file-urls"]);
    assertEquals(played.code, 0, played.stdout + played.stderr);
    assertStringIncludes(played.stdout, "4 actions: 4 ok");
    assertStringIncludes(played.stdout, `navigate file://${dir}/site/shop/cart.html`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
