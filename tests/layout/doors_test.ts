/**
 * The layout rules of docs/architecture.md, checked on the files of the repository:
 * - every source folder has a `mod.ts`, its door;
 * - code outside a folder imports it only through that door (tests, scripts and examples may
 *   reach inside, and a dynamic `import()` may load a heavy part lazily);
 * - folders do not import each other in a cycle (a cycle through doors breaks module
 *   initialisation order);
 * - tests live under `tests/`, nowhere else.
 */
import { dirname, join, normalize } from "node:path";
import { assert, assertEquals } from "../_fixtures/assert.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const EXEMPT = /^(tests|scripts|examples|node_modules|wasm\/assembly|wasm\/build|\.cairn)\//;

/** Every .ts file under the root, relative to it. */
async function tsFiles(dir = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(join(ROOT, dir))) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.name.startsWith(".") || e.name === "node_modules") continue;
    if (e.isDirectory) out.push(...await tsFiles(rel));
    else if (e.isFile && e.name.endsWith(".ts")) out.push(rel);
  }
  return out;
}

const all = await tsFiles();
const sources = all.filter((f) =>
  f.includes("/") && !EXEMPT.test(f) && !/_(test|bench)\.ts$/.test(f)
);
const sourceSet = new Set(sources);
const within = (dir: string, folder: string) => dir === folder || dir.startsWith(folder + "/");

/** Static imports and re-exports (`import … from "./x.ts"`, `export … from`), with `type` ones. */
export function staticImports(text: string): { spec: string; typeOnly: boolean }[] {
  const re = /(?:^|\n)\s*(import|export)(\s+type)?\s[^;]*?\sfrom\s*["'](\.{1,2}\/[^"']+)["']/g;
  return [...text.matchAll(re)].map((m) => ({ spec: m[3]!, typeOnly: m[2] !== undefined }));
}

/** Each offending import: `file → target`, for imports that skip a folder's door. */
export function doorViolations(files: Map<string, string>): string[] {
  const bad: string[] = [];
  for (const [file, text] of files) {
    for (const { spec } of staticImports(text)) {
      const target = normalize(join(dirname(file), spec));
      if (!sourceSet.has(target) && !files.has(target)) continue;
      const folder = dirname(target);
      if (within(dirname(file), folder) || target === `${folder}/mod.ts`) continue;
      bad.push(`${file} → ${target}`);
    }
  }
  return bad;
}

const texts = new Map(
  await Promise.all(
    [...sources, "main.ts"].map(async (f) => [f, await Deno.readTextFile(join(ROOT, f))] as const),
  ),
);

Deno.test("every source folder has a mod.ts", () => {
  const folders = new Set(sources.map((f) => dirname(f)));
  const missing = [...folders].filter((d) => !sourceSet.has(`${d}/mod.ts`)).sort();
  assertEquals(missing, []);
});

Deno.test("code outside a folder imports it only through its mod.ts", () => {
  assertEquals(doorViolations(texts), []);
});

Deno.test("the door rule catches an import that reaches inside another folder", () => {
  const probe = new Map([["api/probe.ts", 'import { x } from "../engine/trail/trail.ts";\n']]);
  assertEquals(doorViolations(probe), ["api/probe.ts → engine/trail/trail.ts"]);
  const ok = new Map([["api/probe.ts", 'import { x } from "../engine/trail/mod.ts";\n']]);
  assertEquals(doorViolations(ok), []);
});

Deno.test("folders do not import each other in a cycle (runtime imports)", () => {
  const edges = new Map<string, Set<string>>();
  for (const [file, text] of texts) {
    for (const { spec, typeOnly } of staticImports(text)) {
      if (typeOnly) continue;
      const target = normalize(join(dirname(file), spec));
      if (!sourceSet.has(target)) continue;
      const [a, b] = [dirname(file), dirname(target)];
      if (within(a, b) || within(b, a)) continue;
      (edges.get(a) ?? edges.set(a, new Set()).get(a)!).add(b);
    }
  }
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (n: string, path: string[]) => {
    if (state.get(n) === "done") return;
    if (state.get(n) === "open") {
      cycles.push([...path.slice(path.indexOf(n)), n].join(" → "));
      return;
    }
    state.set(n, "open");
    for (const m of edges.get(n) ?? []) visit(m, [...path, n]);
    state.set(n, "done");
  };
  for (const n of [...edges.keys()].sort()) visit(n, []);
  assertEquals(cycles, []);
});

Deno.test("tests live under tests/ only", () => {
  const stray = all.filter((f) =>
    /_test\.ts$/.test(f) && !f.startsWith("tests/") && !f.startsWith("wasm/assembly/")
  );
  assertEquals(stray, []);
  assert(all.some((f) => f.startsWith("tests/engine/")), "tests mirror the source folders");
});

/** The layers, lowest first: a module imports only from its own layer or lower ones. */
const LAYER: Readonly<Record<string, number>> = {
  wasm: 0,
  events: 0,
  engine: 1,
  drivers: 2,
  runners: 3,
  api: 4,
  mcp: 4,
  cli: 5,
};

/** Each import that reaches up a layer (engine → drivers, drivers → runners, …). */
export function layerViolations(files: Map<string, string>): string[] {
  const bad: string[] = [];
  for (const [file, text] of files) {
    const from = LAYER[file.split("/")[0]!];
    if (from === undefined) continue;
    for (const { spec } of staticImports(text)) {
      const target = normalize(join(dirname(file), spec));
      const to = LAYER[target.split("/")[0]!];
      if (to !== undefined && to > from) bad.push(`${file} → ${target}`);
    }
  }
  return bad;
}

Deno.test("layers import downwards only: events, engine, drivers, runners, api/mcp, cli", () => {
  assertEquals(layerViolations(texts), []);
  const probe = new Map([["engine/x.ts", 'import { y } from "../drivers/mod.ts";\n']]);
  assertEquals(layerViolations(probe), ["engine/x.ts → drivers/mod.ts"]);
});
