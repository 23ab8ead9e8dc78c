/**
 * The flat screen table shared by the AssemblyScript hot path and its host, described once.
 *
 * This file is compiled twice: by Deno (the host, `wasm/mod.ts`, `wasm/reference.ts`) and by
 * AssemblyScript (`wasm/assembly/index.ts` imports it). It therefore holds only integer
 * constants, which both compilers read the same way.
 *
 * A table of `n` nodes is one contiguous, 16-byte aligned block of bytes (`H_TOTAL_BYTES`):
 *
 * ```
 * offset 0                        header: HEADER_INTS Int32 fields (H_* indices)
 * HEADER_BYTES + c * stride       column c (COL_*): n Int32 values, zero-padded to `stride` bytes
 * H_NARROW_COLUMNS + k * nStride  narrow column k (NARROW_*): n Int16 values, zero-padded
 * H_STR_OFFSETS                   string offsets: stringCount + 1 Int32 (byte offsets in the arena)
 * H_ARENA                         string arena: the UTF-8 bytes of every interned string
 * ```
 *
 * with `stride = ceil(n / LANES) * LANES * 4` and `nStride = ceil(n / NARROW_LANES) *
 * NARROW_LANES * 2` bytes (whole `v128` blocks), so every column starts 16-byte aligned and a SIMD
 * loop may read the padding lanes of the last block.
 *
 * The narrow columns are a derived Int16 copy of the bounds (left, top, width, height) for the
 * hit test: eight nodes per `v128` instead of four. They hold coordinates minus an origin
 * (`H_NARROW_OX`, `H_NARROW_OY`) chosen so that every box lies within ±NARROW_LIMIT, and are valid
 * (`H_NARROW` = 1) when the boxes span at most 2 * NARROW_LIMIT + 1 pixels on each axis: phone,
 * tablet and viewport screens, and web pages up to 32,767 px long. Otherwise the hit test reads
 * the Int32 columns.
 *
 * Nodes are in document order (pre-order), so the subtree of node `i` is `[i, end[i])`.
 * String ids are indices into the string offsets; id 0 is the empty string and means "absent".
 * Coordinates (columns and hit-test points) must lie within ±2^29 + 1: the SIMD range test
 * computes `x - x1` in 32 bits. The engine's flattener clamps to that range.
 *
 * @module
 */

/** Int32 lanes per `v128`: columns are padded to a whole number of blocks of this many nodes. */
export const LANES = 4;
/** Alignment of the table, of every column and of every section, in bytes. */
export const ALIGN = 16;

// ---- header (Int32 indices into the first HEADER_BYTES bytes) ----
/** Number of Int32 header fields. */
export const HEADER_INTS = 16;
/** Size of the header in bytes. */
export const HEADER_BYTES = 64;
/** Header field: `MAGIC`, to catch a pointer to something that is not a table. */
export const H_MAGIC = 0;
/** Header field: number of nodes `n`. */
export const H_COUNT = 1;
/** Header field: bytes from one column to the next (`stride`). */
export const H_STRIDE = 2;
/** Header field: number of interned strings, including id 0 (the empty string). */
export const H_STRING_COUNT = 3;
/** Header field: byte offset (from the table start) of the string offsets. */
export const H_STR_OFFSETS = 4;
/** Header field: byte offset (from the table start) of the string arena. */
export const H_ARENA = 5;
/** Header field: length of the string arena in bytes. */
export const H_ARENA_BYTES = 6;
/** Header field: total size of the table in bytes (a multiple of ALIGN). */
export const H_TOTAL_BYTES = 7;
/** Header field: 1 when the narrow Int16 columns hold the bounds, else 0. */
export const H_NARROW = 8;
/** Header field: byte offset (from the table start) of the narrow columns. */
export const H_NARROW_COLUMNS = 9;
/** Header field: bytes from one narrow column to the next. */
export const H_NARROW_STRIDE = 10;
/** Header field: x origin subtracted from the narrow columns' x1 (and from points). */
export const H_NARROW_OX = 11;
/** Header field: y origin subtracted from the narrow columns' y1 (and from points). */
export const H_NARROW_OY = 12;
/** The value of the `H_MAGIC` field ("CAIR" little-endian). */
export const MAGIC = 0x52494143;

// ---- columns (each an Int32 array of n values) ----
/** Column: index of the parent node, -1 for the root. */
export const COL_PARENT = 0;
/** Column: depth in the tree (root 0). */
export const COL_DEPTH = 1;
/** Column: exclusive end of the node's subtree (its subtree is `[i, end)`). */
export const COL_END = 2;
/** Column: left edge, inclusive (rounded bounds.x). */
export const COL_X1 = 3;
/** Column: top edge, inclusive (rounded bounds.y). */
export const COL_Y1 = 4;
/** Column: right edge, exclusive (rounded bounds.x + bounds.w, never below x1). */
export const COL_X2 = 5;
/** Column: bottom edge, exclusive (rounded bounds.y + bounds.h, never below y1). */
export const COL_Y2 = 6;
/** Column: (x2 - x1) * (y2 - y1), capped at 2^31 - 1. */
export const COL_AREA = 7;
/** Column: state flags (F_* bits). */
export const COL_FLAGS = 8;
/** Column: centre x as refs use it, `Math.round(x + w / 2)` of the unrounded bounds. */
export const COL_CX = 9;
/** Column: centre y as refs use it, `Math.round(y + h / 2)` of the unrounded bounds. */
export const COL_CY = 10;
/**
 * Column: paint rank, the node's position in drawing order (a pre-order walk that visits
 * siblings in the order they are drawn: Android `drawing-order`, else document order). A node
 * with a higher rank is drawn over every node of lower rank it overlaps, so the topmost node at a
 * point is the one of highest rank containing it.
 */
export const COL_PAINT = 11;
/** Column: string id of the class name. */
export const COL_CLASS = 12;
/** Column: string id of the text. */
export const COL_TEXT = 13;
/** Column: string id of the resource id. */
export const COL_RESOURCE_ID = 14;
/** Column: string id of the test id. */
export const COL_TEST_ID = 15;
/** Column: string id of the content description. */
export const COL_CONTENT_DESCRIPTION = 16;
/** Column: string id of the role. */
export const COL_ROLE = 17;
/** Column: string id of the accessible name. */
export const COL_NAME = 18;
/** Column: string id of the hint / placeholder. */
export const COL_HINT = 19;
/** Number of columns. */
export const NUM_COLUMNS = 20;
/** First string-id column; string columns run from here to NUM_COLUMNS - 1. */
export const FIRST_STRING_COLUMN = 12;

// ---- narrow columns (Int16, valid when H_NARROW is 1) ----
/** Narrow column: x1. */
export const NARROW_X1 = 0;
/** Narrow column: y1. */
export const NARROW_Y1 = 1;
/** Narrow column: width, x2 - x1 (0 for padding lanes, which then contain no point). */
export const NARROW_W = 2;
/** Narrow column: height, y2 - y1. */
export const NARROW_H = 3;
/** Number of narrow columns. */
export const NUM_NARROW = 4;
/** Shifted by the origin, narrow boxes satisfy x1, y1 ≥ -NARROW_LIMIT - 1 and x2, y2 ≤ NARROW_LIMIT. */
export const NARROW_LIMIT = 16383;
/** Int16 lanes per `v128`. */
export const NARROW_LANES = 8;

// ---- flags (bits of COL_FLAGS) ----
/** Flag: clickable. */
export const F_CLICKABLE = 1;
/** Flag: enabled. */
export const F_ENABLED = 2;
/** Flag: focused. */
export const F_FOCUSED = 4;
/** Flag: checked. */
export const F_CHECKED = 8;
/** Flag: checkable. */
export const F_CHECKABLE = 16;
/** Flag: selected. */
export const F_SELECTED = 32;
/** Flag: scrollable. */
export const F_SCROLLABLE = 64;
/** Flag: password field. */
export const F_PASSWORD = 128;
/** Flag: visible (only visible nodes are hit). */
export const F_VISIBLE = 256;
/**
 * Flag: a text field (`isTextField` of engine/screens/refs.ts: EditText, iOS text field, web textbox). Its
 * ref label is content description, else name, else hint: its text is the value typed.
 */
export const F_TEXT_FIELD = 512;
/**
 * Flag: interactive, a control a person taps or types into: clickable, and on an iOS tree that
 * names no element types (Maestro, Trailblaze) a node with a label or an id of its own that is a
 * leaf or holds a labelled node (engine/screens/screen_table.ts). `hitTestTop` with this bit finds an iOS
 * tap's target.
 */
export const F_INTERACTIVE = 1024;

// ---- selector predicate (Int32 fields at a pointer passed to count/matches) ----
/** Predicate field: first node index of the range searched (inclusive). */
export const P_FROM = 0;
/** Predicate field: end of the range searched (exclusive; clamped to n). */
export const P_TO = 1;
/** Predicate field: flags mask; a node matches when `(flags & mask) == value`. */
export const P_FLAGS_MASK = 2;
/** Predicate field: flags value compared under the mask. */
export const P_FLAGS_VALUE = 3;
/** Predicate field: number of column clauses that follow. */
export const P_CLAUSE_COUNT = 4;
/** Predicate field: first clause; clause k is the pair (column, string id) at P_CLAUSES + 2k. */
export const P_CLAUSES = 5;
/** Most column clauses a predicate holds (one per string column). */
export const MAX_CLAUSES = 8;
/** Size of a predicate in Int32 fields (5 + 2 * MAX_CLAUSES, rounded up to a block). */
export const PREDICATE_INTS = 24;

// ---- ref hash (FNV-1a, 32 bit) ----
// label = text || contentDescription || name, or for an F_TEXT_FIELD node
// contentDescription || name || hint (the first non-absent string id).
/** FNV-1a 32-bit offset basis. */
export const FNV_OFFSET = 0x811c9dc5;
/** FNV-1a 32-bit prime. */
export const FNV_PRIME = 0x01000193;
