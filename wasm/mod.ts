/**
 * The host binding of the WASM hot path (`wasm/build/cairn.wasm`, built from `wasm/assembly/`
 * by `deno task build:wasm`).
 *
 * The module is compiled and instantiated once, lazily, on the first call. A table is copied
 * into linear memory once and stays resident until another table is used; hot calls pass
 * pointers to it, so no string and no node crosses the boundary per call. Memory grows as
 * tables and batches need.
 *
 * @example
 * ```ts
 * import { COL_END, COL_FLAGS, COL_X2, COL_Y2, COL_AREA, F_VISIBLE } from "./layout.ts";
 * import { TableWriter } from "./table.ts";
 * import { wasmAvailable, wasmHotPath } from "./mod.ts";
 * const w = new TableWriter(1);
 * w.column(COL_END)[0] = 1;
 * w.column(COL_X2)[0] = 100;
 * w.column(COL_Y2)[0] = 50;
 * w.column(COL_AREA)[0] = 5000;
 * w.column(COL_FLAGS)[0] = F_VISIBLE;
 * if (wasmAvailable() && wasmHotPath().hitTest(w.finish(), 10, 10) !== 0) throw new Error();
 * ```
 *
 * @module
 */
import { PREDICATE_INTS } from "./layout.ts";
import type { HotPath } from "./hot_path.ts";
import { align, type FlatTable } from "./table.ts";

/** Where the built module is read from. */
export const WASM_URL: URL = new URL("./build/cairn.wasm", import.meta.url);

const PAGE = 65536;

interface Exports {
  memory: WebAssembly.Memory;
  heapBase(): number;
  hitTest(table: number, x: number, y: number): number;
  hitTestTop(table: number, x: number, y: number, mask: number): number;
  hitTestBatch(table: number, points: number, len: number, out: number): void;
  refHashes(table: number, out: number, cache: number): void;
  countMatches(table: number, pred: number): number;
  countBatch(table: number, preds: number, len: number, stride: number, out: number): void;
  firstMatches(table: number, pred: number, out: number, k: number): number;
  subtreeEnd(table: number, i: number): number;
  ancestors(table: number, i: number, out: number): number;
}

class WasmBinding implements HotPath {
  readonly kind = "wasm";
  readonly #x: Exports;
  readonly #base: number;
  #resident = 0;
  #scratch = 0;

  constructor(x: Exports) {
    this.#x = x;
    this.#base = align(x.heapBase());
  }

  /** Copies `t` into memory unless it is resident; returns its address. */
  #load(t: FlatTable): number {
    if (this.#resident !== t.id) {
      this.#reserve(this.#base + t.bytes.length);
      new Uint8Array(this.#x.memory.buffer, this.#base, t.bytes.length).set(t.bytes);
      this.#resident = t.id;
      this.#scratch = this.#base + t.bytes.length;
    }
    return this.#base;
  }

  /** Grows memory so that bytes below `end` are addressable. */
  #reserve(end: number): void {
    const have = this.#x.memory.buffer.byteLength;
    if (end > have) this.#x.memory.grow(Math.ceil((end - have) / PAGE));
  }

  /** Reserves `bytes` of scratch after the resident table; returns its address. */
  #scratchArea(bytes: number): number {
    if (this.#scratch + bytes > this.#x.memory.buffer.byteLength) {
      this.#reserve(this.#scratch + align(bytes));
    }
    return this.#scratch;
  }

  #view: Int32Array<ArrayBufferLike> = new Int32Array(0);

  /** All of memory as Int32 (re-made after the memory grew, which detaches the old buffer). */
  #mem32(): Int32Array<ArrayBufferLike> {
    if (this.#view.buffer !== this.#x.memory.buffer) {
      this.#view = new Int32Array(this.#x.memory.buffer);
    }
    return this.#view;
  }

  #i32(ptr: number, len: number): Int32Array<ArrayBufferLike> {
    return this.#mem32().subarray(ptr >> 2, (ptr >> 2) + len);
  }

  hitTest(t: FlatTable, x: number, y: number): number {
    return this.#x.hitTest(this.#load(t), x, y);
  }

  hitTestTop(t: FlatTable, x: number, y: number, mask: number): number {
    return this.#x.hitTestTop(this.#load(t), x, y, mask);
  }

  hitTestBatch(t: FlatTable, points: Int32Array, out: Int32Array): void {
    const table = this.#load(t);
    const len = out.length;
    const p = this.#scratchArea(align(len * 8) + len * 4);
    const o = p + align(len * 8);
    this.#i32(p, len * 2).set(points.subarray(0, len * 2));
    this.#x.hitTestBatch(table, p, len, o);
    out.set(this.#i32(o, len));
  }

  refHashes(t: FlatTable, out: Uint32Array): void {
    const table = this.#load(t);
    const strings = t.strings.length;
    const o = this.#scratchArea(align(t.n * 4) + strings * 4);
    const cache = o + align(t.n * 4);
    this.#mem32().fill(0, cache >> 2, (cache >> 2) + strings);
    this.#x.refHashes(table, o, cache);
    out.set(new Uint32Array(this.#x.memory.buffer, o, t.n));
  }

  countMatches(t: FlatTable, pred: Int32Array): number {
    const table = this.#load(t);
    const p = this.#scratchArea(PREDICATE_INTS * 4);
    this.#mem32().set(
      pred.length === PREDICATE_INTS ? pred : pred.subarray(0, PREDICATE_INTS),
      p >> 2,
    );
    return this.#x.countMatches(table, p);
  }

  countBatch(t: FlatTable, preds: Int32Array, out: Int32Array): void {
    const table = this.#load(t);
    const len = out.length;
    const p = this.#scratchArea(len * PREDICATE_INTS * 4 + len * 4);
    const o = p + len * PREDICATE_INTS * 4;
    this.#i32(p, len * PREDICATE_INTS).set(preds.subarray(0, len * PREDICATE_INTS));
    this.#x.countBatch(table, p, len, PREDICATE_INTS * 4, o);
    out.set(this.#i32(o, len));
  }

  firstMatches(t: FlatTable, pred: Int32Array, out: Int32Array): number {
    const table = this.#load(t);
    const k = out.length;
    const p = this.#scratchArea(PREDICATE_INTS * 4 + k * 4);
    const o = p + PREDICATE_INTS * 4;
    this.#mem32().set(
      pred.length === PREDICATE_INTS ? pred : pred.subarray(0, PREDICATE_INTS),
      p >> 2,
    );
    const found = this.#x.firstMatches(table, p, o, k);
    if (found > 0 && k > 0) out.set(this.#i32(o, Math.min(found, k)));
    return found;
  }

  subtreeEnd(t: FlatTable, i: number): number {
    return this.#x.subtreeEnd(this.#load(t), i);
  }

  ancestors(t: FlatTable, i: number, out: Int32Array): number {
    const table = this.#load(t);
    const o = this.#scratchArea(t.n * 4);
    const k = this.#x.ancestors(table, i, o);
    out.set(this.#i32(o, k));
    return k;
  }
}

let binding: WasmBinding | undefined;

/**
 * Whether the built module exists (it is absent until `deno task build:wasm` ran).
 *
 * @returns true when `wasm/build/cairn.wasm` can be read
 */
export function wasmAvailable(): boolean {
  if (binding !== undefined) return true;
  try {
    return Deno.statSync(WASM_URL).isFile;
  } catch {
    return false;
  }
}

/**
 * The WASM hot path, instantiated on first use.
 *
 * @returns the binding
 * @throws {Error} when the module has not been built
 */
export function wasmHotPath(): HotPath {
  if (binding === undefined) {
    let bytes: Uint8Array<ArrayBuffer>;
    try {
      bytes = Deno.readFileSync(WASM_URL);
    } catch (e) {
      throw new Error(
        `Cannot load ${WASM_URL.pathname}: run deno task build:wasm (${(e as Error).message})`,
      );
    }
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {
      env: {
        abort(_msg: number, _file: number, line: number, column: number) {
          throw new Error(`WASM hot path aborted at ${line}:${column}`);
        },
      },
    });
    binding = new WasmBinding(instance.exports as unknown as Exports);
  }
  return binding;
}
export * from "./hot_path.ts";
export * from "./layout.ts";
export * from "./reference.ts";
export * from "./table.ts";
