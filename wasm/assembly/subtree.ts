// Subtree ranges and ancestor chains.
import { COL_END, COL_PARENT } from "../layout";
import { cell, count } from "./table";

/** Exclusive end of the subtree of node `i` (its subtree is [i, end)), or -1 if out of range. */
export function subtreeEnd(table: usize, i: i32): i32 {
  if (i < 0 || i >= count(table)) return -1;
  return cell(table, COL_END, i);
}

/** Writes the ancestors of node `i` to `out`, parent first, and returns how many there are. */
export function ancestors(table: usize, i: i32, out: usize): i32 {
  if (i < 0 || i >= count(table)) return 0;
  let k = 0;
  let p = cell(table, COL_PARENT, i);
  while (p >= 0) {
    store<i32>(out + (<usize>k << 2), p);
    k++;
    p = cell(table, COL_PARENT, p);
  }
  return k;
}
