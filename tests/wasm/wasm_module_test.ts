import wabtInit from "wabt";
import { WASM_URL } from "../../wasm/mod.ts";
import { assert, assertEquals, assertStringIncludes } from "../_fixtures/assert.ts";

const GOLDEN = new URL("../testdata/wasm_exports.txt", import.meta.url);

/** The module's exports with their signatures, one line each, from wabt's text form. */
function exportLines(wat: string): string[] {
  const types = new Map<string, string>();
  for (const m of wat.matchAll(/\(type \(;(\d+);\) \(func( [^\n]*)?\)\)\n/g)) {
    types.set(m[1]!, (m[2] ?? "").trim());
  }
  const funcs = new Map<string, string>();
  for (const m of wat.matchAll(/\(func (?:\$\S+ )?\(;(\d+);\) \(type (\d+)\)/g)) {
    funcs.set(m[1]!, types.get(m[2]!) ?? "?");
  }
  return [...wat.matchAll(/\(export "(\w+)" \((func|memory) (\d+)\)\)/g)]
    .map((m) => m[2] === "func" ? `func ${m[1]} ${funcs.get(m[3]!)}`.trim() : `memory ${m[1]}`)
    .sort();
}

Deno.test("wasm/build/cairn.wasm validates with wabt and exports the golden list", async () => {
  const bytes = Deno.readFileSync(WASM_URL);
  const wabt = await wabtInit();
  const mod = wabt.readWasm(bytes, { readDebugNames: false, simd: true });
  try {
    mod.validate(); // throws on an invalid module
    const wat = mod.toText({ foldExprs: false, inlineExport: false });
    assertStringIncludes(wat, "v128.load"); // the hot loops are SIMD
    assertStringIncludes(wat, "i32x4.lt_s");
    const lines = exportLines(wat);
    if (Deno.env.get("UPDATE_GOLDEN") === "1") {
      await Deno.writeTextFile(GOLDEN, lines.join("\n") + "\n");
    }
    assertEquals(lines, (await Deno.readTextFile(GOLDEN)).trimEnd().split("\n"));
    const engine = WebAssembly.Module.exports(new WebAssembly.Module(bytes))
      .map((e) => `${e.kind === "function" ? "func" : e.kind} ${e.name}`).sort();
    assertEquals(engine, lines.map((l) => l.split(" ").slice(0, 2).join(" ")));
  } finally {
    mod.destroy();
  }
});

Deno.test("wabt rejects a truncated copy of the module", async () => {
  const full = Deno.readFileSync(WASM_URL);
  const bytes = full.slice(0, full.length - 7);
  const wabt = await wabtInit();
  let failed = false;
  try {
    wabt.readWasm(bytes, { readDebugNames: false, simd: true }).validate();
  } catch {
    failed = true;
  }
  assert(failed, "a corrupted module validated");
});
