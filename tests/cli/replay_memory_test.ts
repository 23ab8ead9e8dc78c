/**
 * `cairn replay --memory KEY=VALUE`: a trail keeps a secret as `pin: null`, opens a link carrying
 * `{{pin}}` and types it; the value given on the command line is used on a page served from
 * 127.0.0.1 in a real Chromium, and stored nowhere (the SQLite file, the printed report). A key the trail does not
 * read, or an entry that is not KEY=VALUE, is refused before a browser starts (exit 2).
 */
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";
import { cairn } from "../_fixtures/cli_run.ts";
import { dbBytes } from "../_fixtures/secret_forms.ts";
import { serveFolder } from "../_fixtures/web_server.ts";
import type { PlaybackReport } from "../../engine/playback/report.ts";

const PIN = "Pin-8841-quartz";

/** Unlocks only with the right pin: the assertion after it proves what was typed. */
const PAGE = `<!doctype html><html><body>
<input aria-label="PIN" id="pin" type="password">
<button onclick="document.getElementById('state').textContent =
  document.getElementById('pin').value === '${PIN}' ? 'Unlocked' : 'Wrong pin'">Unlock</button>
<p id="state">Locked</p>
</body></html>`;

/** Opens the page by a link carrying the pin (a magic link), then types it. */
function trail(url: string): string {
  return `config:
  platform: web
  memory:
    pin: null
trail:
  - step: Open the link
    recording:
      - navigate:
          url: "${url}?code={{pin}}"
  - step: Unlock with the pin
    recording:
      - inputText:
          selector: { ariaLabel: PIN }
          text: "{{pin}}"
      - tap:
          selector: { text: Unlock }
      - assertText:
          selector: { id: state }
          equals: Unlocked
`;
}

Deno.test("cairn replay --memory types a trail's null secret from the value given and stores it nowhere; an unknown or malformed entry exits 2", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-replay-memory-" });
  const pages = `${dir}/pages`;
  await Deno.mkdir(pages);
  await Deno.writeTextFile(`${pages}/lock.html`, PAGE);
  const server = serveFolder(pages);
  try {
    const file = `${dir}/unlock.trail.yaml`;
    await Deno.writeTextFile(file, trail(`${server.url}lock.html`));
    const db = `${dir}/cairn.db`;
    const base = ["replay", file, "--db", db, "--screenshots", `${dir}/shots`];

    const given = await cairn([...base, "--memory", `pin=${PIN}`, "--json"]);
    assertEquals(given.code, 0, given.stderr + given.stdout);
    const report = JSON.parse(given.stdout) as PlaybackReport;
    assertEquals(report.results.map((r) => [r.action, r.status]), [
      ["navigate", "ok"],
      ["type", "ok"],
      ["click", "ok"],
      ["assert_text", "ok"],
    ]);
    assertEquals(report.results[3]!.value, "Unlocked");
    // The page the link opened is reported with the pin taken out.
    assertStringIncludes(report.results[0]!.page_url!, "lock.html?code=[redacted]");

    // Without the value the link cannot be opened nor the pin typed: exit 1.
    const missing = await cairn([...base, "--json"]);
    assertEquals(missing.code, 1, missing.stderr);
    const bare = JSON.parse(missing.stdout) as PlaybackReport;
    assertEquals(bare.results[0]!.status, "failed");
    // A secret the trail leaves out is named as such, not as a page error.
    assertEquals(bare.results[0]!.error_code, "redacted_value");
    assertStringIncludes(
      bare.results[0]!.error!,
      "{{pin}} is a secret the trail does not hold: supply it with --memory pin=…",
    );

    const unknown = await cairn([...base, "--memory", `pim=${PIN}`]);
    assertEquals(unknown.code, 2, unknown.stderr);
    assertStringIncludes(
      unknown.stderr,
      `cairn replay: --memory: ${file} has no memory key "pim" (keys: pin)`,
    );
    const malformed = await cairn([...base, "--memory", PIN]);
    assertEquals(malformed.code, 2, malformed.stderr);
    assertStringIncludes(malformed.stderr, "--memory: expected KEY=VALUE");

    for (const r of [given, missing, unknown, malformed]) {
      assert(!(r.stdout + r.stderr).includes(PIN), r.stdout + r.stderr);
    }
    const bytes = await dbBytes(db);
    assertStringIncludes(bytes, "Unlocked"); // the scan does see stored text
    assert(!bytes.includes(PIN), "the SQLite file holds the pin given with --memory");
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cairn replay --help documents --memory KEY=VALUE", async () => {
  const help = await cairn(["replay", "--help"]);
  assertEquals(help.code, 0, help.stderr);
  assertStringIncludes(help.stdout, "--memory KEY=VALUE");
  assertStringIncludes(help.stdout, "never stored");
});
