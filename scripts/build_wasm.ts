/**
 * Builds the AssemblyScript hot path: `wasm/assembly/index.ts` → `wasm/build/cairn.wasm`
 * (release, `-O3`, SIMD enabled) and `wasm/build/cairn.wat` for review.
 *
 * Run with `deno task build:wasm`. Skips the compile when the module is newer than every source.
 *
 * @module
 */

const root = new URL("../wasm/", import.meta.url);
const entry = new URL("assembly/index.ts", root);
const out = new URL("build/cairn.wasm", root);

async function newestSource(): Promise<number> {
  let newest = 0;
  for await (const e of Deno.readDir(new URL("assembly/", root))) {
    if (!e.isFile) continue;
    const st = await Deno.stat(new URL(`assembly/${e.name}`, root));
    newest = Math.max(newest, st.mtime?.getTime() ?? 0);
  }
  const layout = await Deno.stat(new URL("layout.ts", root)).catch(() => undefined);
  return Math.max(newest, layout?.mtime?.getTime() ?? 0);
}

async function upToDate(): Promise<boolean> {
  const st = await Deno.stat(out).catch(() => undefined);
  return st?.mtime !== null && st?.mtime !== undefined &&
    st.mtime.getTime() >= await newestSource();
}

if (import.meta.main) {
  if (Deno.args.includes("--force") || !(await upToDate())) {
    // Loaded only when a compile is needed: the up-to-date check stays fast.
    const { default: asc } = await import("assemblyscript/asc");
    await Deno.mkdir(new URL("build/", root), { recursive: true });
    // Written under temporary names and renamed, so a process loading the module meanwhile never
    // reads a half-written file.
    const tmp = `.${Deno.pid}.tmp`;
    const wat = new URL("build/cairn.wat", root).pathname;
    const { error, stderr } = await asc.main([
      entry.pathname,
      "--outFile",
      out.pathname + tmp,
      "--textFile",
      wat + tmp,
      "-O3",
      "--runtime",
      "stub",
      "--noAssert",
      "--enable",
      "simd",
    ]);
    if (error) {
      console.error(stderr.toString());
      console.error(`build:wasm: ${error.message}`);
      await Deno.remove(out.pathname + tmp).catch(() => {});
      await Deno.remove(wat + tmp).catch(() => {});
      Deno.exit(1);
    }
    await Deno.rename(wat + tmp, wat);
    await Deno.rename(out.pathname + tmp, out.pathname);
    console.error(`build:wasm: wrote ${out.pathname}`);
  } else {
    console.error("build:wasm: wasm/build/cairn.wasm is up to date");
  }
}
