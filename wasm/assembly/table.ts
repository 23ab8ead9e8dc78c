// Shared helpers of the hot path: where a column of a table starts.
import {
  HEADER_BYTES, H_COUNT, H_NARROW_COLUMNS, H_NARROW_STRIDE, H_STRIDE, NARROW_LIMIT,
} from "../layout";

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

/** Header field `field` of the table at `table`. */
// @ts-ignore: decorator
@inline export function header(table: usize, field: i32): i32 {
  return load<i32>(table + (<usize>field << 2));
}

/** Address of narrow (Int16) column `k` of the table at `table`. */
// @ts-ignore: decorator
@inline export function narrow(table: usize, k: i32): usize {
  return table + <usize>header(table, H_NARROW_COLUMNS) + <usize>(k * header(table, H_NARROW_STRIDE));
}

/**
 * A point coordinate shifted by the narrow origin and clamped so that `x - x1` fits 16 bits; the
 * clamped point lies outside every narrow box exactly when the point does.
 */
// @ts-ignore: decorator
@inline export function clamp16(v: i32, origin: i32): i32 {
  return min(max(v - origin, -NARROW_LIMIT - 2), NARROW_LIMIT + 1);
}
