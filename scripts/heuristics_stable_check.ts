/**
 * Checks the heuristics-version promise ("a version never changes what it writes"): projects
 * every stored capture (examples, `tests/testdata`, the shared corpus) under v1 and v2 in every
 * mode, once with this checkout's engine and once with an older checkout's, and compares the
 * YAML byte for byte.
 * Run: `git worktree add /tmp/wt/old ca21fc3` (copy `wasm/build` there), then
 * `deno run -A scripts/heuristics_stable_check.ts /tmp/wt/old [v1,v2]`; exit 1 on a difference.
 *
 * @module
 */

const here = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** Projects every stored capture with the engine under `root`; key "file version mode". */
async function project(root: string, versions: string[]): Promise<Record<string, string>> {
  // a checkout of either layout: before or after the move into folders
  const first = async (...paths: string[]) => {
    for (const p of paths) {
      if (await Deno.stat(`${root}/${p}`).then(() => true, () => false)) {
        return await import(`${root}/${p}`);
      }
    }
    throw new Error(`${root}: none of ${paths.join(", ")}`);
  };
  const sup = await first("tests/_fixtures/optimizer_support.ts", "tests/optimizer_support.ts");
  const tp = await first("engine/optimizer/trail_projection.ts", "engine/trail_projection.ts");
  const files: string[] = [];
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = `${d}/${e.name}`;
      if (e.isDirectory) await walk(p);
      else if (/\.jsonl?$/.test(e.name)) files.push(p);
    }
  };
  for (const d of [`${here}/examples`, `${here}/tests/testdata`, `${here}/../shared/corpus`]) {
    try {
      await walk(d);
    } catch { /* a folder this checkout lacks */ }
  }
  const out: Record<string, string> = {};
  for (const f of files.sort()) {
    let c;
    try {
      c = f.endsWith(".jsonl") ? await sup.loadEventsFile(f) : await sup.loadCaptureFile(f, "s1");
    } catch {
      continue; // not a capture
    }
    if (!c.events.some((e: { type: string }) => e.type === "ActionPerformed")) continue;
    for (const heuristics of versions) {
      for (const mode of ["strict", "flexible", "adaptive"]) {
        try {
          out[`${f} ${heuristics} ${mode}`] =
            tp.projectTrail(c.events, { screens: c.screens, mode, heuristics }).yaml;
        } catch (e) {
          out[`${f} ${heuristics} ${mode}`] = `error: ${e}`;
        }
      }
    }
  }
  return out;
}

if (import.meta.main) {
  const [old, list = "v1,v2", asJson] = Deno.args;
  if (!old) {
    console.error("usage: heuristics_stable_check.ts OLD_CHECKOUT [v1,v2]");
    Deno.exit(2);
  }
  if (asJson === "--project") {
    console.log(JSON.stringify(await project(old, list.split(","))));
    Deno.exit(0);
  }
  const run = async (root: string) => {
    const o = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", import.meta.filename!, root, list, "--project"],
      stderr: "inherit",
    }).output();
    if (!o.success) throw new Error(`projecting under ${root} failed`);
    return JSON.parse(new TextDecoder().decode(o.stdout)) as Record<string, string>;
  };
  const before = await run(old);
  const now = await run(here);
  let same = 0;
  const differ: string[] = [];
  for (const k of Object.keys(before)) before[k] === now[k] ? same++ : differ.push(k);
  for (const k of differ) console.log(`differs: ${k}`);
  console.log(`${same} projections equal, ${differ.length} different (${list})`);
  Deno.exit(differ.length === 0 ? 0 : 1);
}
