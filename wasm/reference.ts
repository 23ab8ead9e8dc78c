/**
 * The plain-TS reference of every hot-path export: straightforward loops over the same typed
 * arrays the WASM module reads. Tests hold the WASM module equal to it; benches compare them.
 *
 * @module
 */
import {
  COL_AREA,
  COL_CLASS,
  COL_CONTENT_DESCRIPTION,
  COL_CX,
  COL_CY,
  COL_DEPTH,
  COL_END,
  COL_FLAGS,
  COL_HINT,
  COL_NAME,
  COL_PAINT,
  COL_PARENT,
  COL_TEXT,
  COL_X1,
  COL_X2,
  COL_Y1,
  COL_Y2,
  F_TEXT_FIELD,
  F_VISIBLE,
  FNV_OFFSET,
  FNV_PRIME,
  P_CLAUSE_COUNT,
  P_CLAUSES,
  P_FLAGS_MASK,
  P_FLAGS_VALUE,
  P_FROM,
  P_TO,
  PREDICATE_INTS,
} from "./layout.ts";
import type { HotPath } from "./hot_path.ts";
import type { FlatTable } from "./table.ts";

function hitTest(t: FlatTable, x: number, y: number): number {
  const x1 = t.column(COL_X1), y1 = t.column(COL_Y1);
  const x2 = t.column(COL_X2), y2 = t.column(COL_Y2);
  const flags = t.column(COL_FLAGS), depth = t.column(COL_DEPTH), area = t.column(COL_AREA);
  let best = -1, bestDepth = -1, bestArea = 0;
  for (let i = 0; i < t.n; i++) {
    if (x1[i]! <= x && x < x2[i]! && y1[i]! <= y && y < y2[i]! && (flags[i]! & F_VISIBLE) !== 0) {
      const d = depth[i]!, a = area[i]!;
      if (d > bestDepth || (d === bestDepth && a < bestArea)) {
        best = i;
        bestDepth = d;
        bestArea = a;
      }
    }
  }
  return best;
}

function hitTestTop(t: FlatTable, x: number, y: number, mask: number): number {
  const x1 = t.column(COL_X1), y1 = t.column(COL_Y1);
  const x2 = t.column(COL_X2), y2 = t.column(COL_Y2);
  const flags = t.column(COL_FLAGS), paint = t.column(COL_PAINT);
  const need = mask | F_VISIBLE;
  let best = -1, bestRank = -1;
  for (let i = 0; i < t.n; i++) {
    if (x1[i]! <= x && x < x2[i]! && y1[i]! <= y && y < y2[i]! && (flags[i]! & need) === need) {
      if (paint[i]! > bestRank) {
        best = i;
        bestRank = paint[i]!;
      }
    }
  }
  return best;
}

function fnv(h: number, byte: number): number {
  return Math.imul(h ^ byte, FNV_PRIME);
}

function hashString(h: number, t: FlatTable, id: number): number {
  const arena = t.arena;
  for (let p = t.strOffsets[id]!, end = t.strOffsets[id + 1]!; p < end; p++) h = fnv(h, arena[p]!);
  return h;
}

function hashDecimal(h: number, v: number): number {
  const s = String(Math.round(v / 10) * 10);
  for (let k = 0; k < s.length; k++) h = fnv(h, s.charCodeAt(k));
  return h;
}

function refHashes(t: FlatTable, out: Uint32Array): void {
  const cls = t.column(COL_CLASS), text = t.column(COL_TEXT);
  const desc = t.column(COL_CONTENT_DESCRIPTION), name = t.column(COL_NAME);
  const hint = t.column(COL_HINT), flags = t.column(COL_FLAGS);
  const cx = t.column(COL_CX), cy = t.column(COL_CY);
  for (let i = 0; i < t.n; i++) {
    let h = hashString(FNV_OFFSET | 0, t, cls[i]!);
    h = fnv(h, 0);
    const label = (flags[i]! & F_TEXT_FIELD) !== 0
      ? desc[i]! || name[i]! || hint[i]! // a text field's text is its value
      : text[i]! || desc[i]! || name[i]!;
    h = hashString(h, t, label);
    h = fnv(h, 0);
    h = hashDecimal(h, cx[i]!);
    h = fnv(h, 44); // ","
    out[i] = hashDecimal(h, cy[i]!) >>> 0;
  }
}

function scan(t: FlatTable, pred: Int32Array, out: Int32Array | undefined): number {
  const from = Math.max(pred[P_FROM]!, 0), to = Math.min(pred[P_TO]!, t.n);
  const mask = pred[P_FLAGS_MASK]!, value = pred[P_FLAGS_VALUE]!;
  const clauses: Int32Array[] = [], ids: number[] = [];
  for (let c = 0; c < pred[P_CLAUSE_COUNT]!; c++) {
    clauses.push(t.column(pred[P_CLAUSES + 2 * c]!));
    ids.push(pred[P_CLAUSES + 2 * c + 1]!);
  }
  const flags = t.column(COL_FLAGS), k = out?.length ?? 0;
  let found = 0;
  nodes: for (let i = from; i < to; i++) {
    for (let c = 0; c < clauses.length; c++) if (clauses[c]![i] !== ids[c]) continue nodes;
    if ((flags[i]! & mask) !== value) continue;
    if (found < k) out![found] = i;
    found++;
  }
  return found;
}

/** The plain-TS hot path. */
export const reference: HotPath = {
  kind: "reference",
  hitTest,
  hitTestTop,
  hitTestBatch(t, points, out) {
    for (let k = 0; k < out.length; k++) out[k] = hitTest(t, points[2 * k]!, points[2 * k + 1]!);
  },
  refHashes,
  countMatches: (t, pred) => scan(t, pred, undefined),
  countBatch(t, preds, out) {
    for (let j = 0; j < out.length; j++) {
      out[j] = scan(t, preds.subarray(j * PREDICATE_INTS, (j + 1) * PREDICATE_INTS), undefined);
    }
  },
  firstMatches: scan,
  subtreeEnd: (t, i) => (i >= 0 && i < t.n ? t.column(COL_END)[i]! : -1),
  ancestors(t, i, out) {
    if (i < 0 || i >= t.n) return 0;
    const parent = t.column(COL_PARENT);
    let k = 0;
    for (let p = parent[i]!; p >= 0; p = parent[p]!) out[k++] = p;
    return k;
  },
};
