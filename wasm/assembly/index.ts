// Placeholder until the hot path lands: proves the build pipeline.
export function add(a: i32, b: i32): i32 {
  return a + b;
}
