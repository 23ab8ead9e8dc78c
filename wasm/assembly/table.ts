// Shared helpers of the hot path: where a column of a table starts.
import { HEADER_BYTES, H_COUNT, H_STRIDE } from "../layout";

/** Number of nodes of the table at `table`. */
// @ts-ignore: decorator
@inline export function count(table: usize): i32 {
  return load<i32>(table + (<usize>H_COUNT << 2));
}

/** Address of column `c` of the table at `table`. */
// @ts-ignore: decorator
@inline export function column(table: usize, c: i32): usize {
  const stride = load<i32>(table + (<usize>H_STRIDE << 2));
  return table + <usize>HEADER_BYTES + <usize>(c * stride);
}

/** Value of column `c` at node `i`. */
// @ts-ignore: decorator
@inline export function cell(table: usize, c: i32, i: i32): i32 {
  return load<i32>(column(table, c) + (<usize>i << 2));
}
