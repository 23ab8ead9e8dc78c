/**
 * `cairn export --format recording_v1 --out FOLDER` never overwrites an earlier export that holds
 * something else under the same 004 name (a copy ingested from another recording with the same id
 * and time): it writes `…-2.json`; exporting the same session again finds its own file.
 */
import { assertEquals } from "../../_fixtures/assert.ts";
import { cairn, ROOT } from "../../_fixtures/cli_run.ts";

const FIXTURE = `${ROOT}tests/testdata/playback/signin.recording_v1.json`;

Deno.test("cairn export into a folder keeps an earlier export with the same name and other content", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cairn-export-name-" });
  try {
    const db = `${dir}/c.db`;
    const rec = JSON.parse(await Deno.readTextFile(FIXTURE));
    // another recording with the same id and time: one action fewer
    rec.timeline = rec.timeline.slice(0, -1);
    await Deno.writeTextFile(`${dir}/other.json`, JSON.stringify(rec));
    const a = (await cairn(["ingest", FIXTURE, "--db", db])).stdout.trim();
    const b = (await cairn(["ingest", `${dir}/other.json`, "--db", db])).stdout.trim();
    const out = `${dir}/out/`;
    const exported = async (id: string) => {
      const run = await cairn(["export", id, "--format", "recording_v1", "--out", out, "--db", db]);
      assertEquals(run.code, 0, run.stderr);
      return run.stdout.trim().replace(out, "");
    };
    const first = await exported(a);
    const second = await exported(b);
    assertEquals(second, first.replace(/\.json$/, "-2.json"));
    assertEquals(await exported(a), first); // the same bytes: its own file, not a third
    assertEquals((await Array.fromAsync(Deno.readDir(out))).length, 2);
    const names = [first, second].map((n) =>
      JSON.parse(Deno.readTextFileSync(out + n)).timeline.length
    );
    assertEquals(names, [rec.timeline.length + 1, rec.timeline.length]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
