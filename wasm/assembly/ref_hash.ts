// Ref hashes: FNV-1a 32-bit over className \0 label \0 round10(cx) "," round10(cy), where label
// is text || contentDescription || name, or contentDescription || name || hint for a text field
// (F_TEXT_FIELD: its text is the value typed).
import {
  COL_CLASS, COL_CONTENT_DESCRIPTION, COL_CX, COL_CY, COL_FLAGS, COL_HINT, COL_NAME, COL_TEXT,
  F_TEXT_FIELD, FNV_OFFSET, FNV_PRIME, H_ARENA, H_STR_OFFSETS,
} from "../layout";
import { column, count } from "./table";

// @ts-ignore: decorator
@inline function step(h: u32, byte: u32): u32 {
  return (h ^ byte) * <u32>FNV_PRIME;
}

// @ts-ignore: decorator
@inline function hashString(h: u32, offsets: usize, arena: usize, id: i32): u32 {
  const at = offsets + (<usize>id << 2);
  const start = arena + <usize>load<i32>(at);
  const stop = arena + <usize>load<i32>(at, 4);
  for (let p = start; p < stop; p++) h = step(h, <u32>load<u8>(p));
  return h;
}

// Math.round(v / 10) * 10 for an integer v (JS rounds halves towards +Infinity).
// @ts-ignore: decorator
@inline function round10(v: i32): i32 {
  const a = v + 5;
  const q = a >= 0 ? a / 10 : -((9 - a) / 10);
  return q * 10;
}

// Hashes the decimal form of v as String(v) prints an integer.
// @ts-ignore: decorator
@inline function hashInt(h: u32, v: i32): u32 {
  let u: u32 = <u32>v;
  if (v < 0) {
    h = step(h, 45); // "-"
    u = <u32>(-v);
  }
  let p: u32 = 1;
  while (u / p >= 10) p *= 10;
  while (p > 0) {
    h = step(h, 48 + (u / p) % 10);
    p /= 10;
  }
  return h;
}

/**
 * Writes the ref hash of every node (n Uint32 values) to `out`. `cache` holds one zeroed Uint32
 * per interned string: the hash state after `className \0`, computed once per class name.
 */
export function refHashes(table: usize, out: usize, cache: usize): void {
  const n = count(table);
  const offsets = table + <usize>load<i32>(table + (<usize>H_STR_OFFSETS << 2));
  const arena = table + <usize>load<i32>(table + (<usize>H_ARENA << 2));
  const cls = column(table, COL_CLASS);
  const text = column(table, COL_TEXT);
  const desc = column(table, COL_CONTENT_DESCRIPTION);
  const name = column(table, COL_NAME);
  const hint = column(table, COL_HINT);
  const flags = column(table, COL_FLAGS);
  const cxp = column(table, COL_CX);
  const cyp = column(table, COL_CY);
  for (let i = 0; i < n; i++) {
    const at = <usize>i << 2;
    const slot = cache + (<usize>load<i32>(cls + at) << 2);
    let h = load<u32>(slot);
    if (h == 0) { // not cached yet (a prefix state of 0 is merely recomputed)
      h = step(hashString(<u32>FNV_OFFSET, offsets, arena, load<i32>(cls + at)), 0);
      store<u32>(slot, h);
    }
    let label: i32;
    if ((load<i32>(flags + at) & F_TEXT_FIELD) != 0) {
      label = load<i32>(desc + at);
      if (label == 0) label = load<i32>(name + at);
      if (label == 0) label = load<i32>(hint + at);
    } else {
      label = load<i32>(text + at);
      if (label == 0) label = load<i32>(desc + at);
      if (label == 0) label = load<i32>(name + at);
    }
    h = hashString(h, offsets, arena, label);
    h = step(h, 0);
    h = hashInt(h, round10(load<i32>(cxp + at)));
    h = step(h, 44); // ","
    h = hashInt(h, round10(load<i32>(cyp + at)));
    store<u32>(out + at, h);
  }
}
