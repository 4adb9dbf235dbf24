// A seeded pseudo-random source for the fuzz tests: the same seed gives the same inputs, so a failure
// reproduces from the test's name.
export interface Seeded {
  /** The next number in [0, 1]. */
  next(): number;
  pick<T>(from: readonly T[]): T;
}

/** A small linear congruential generator. */
export function seeded(seed: number): Seeded {
  let state = seed;
  const next = (): number => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  return { next, pick: <T>(from: readonly T[]): T => from[Math.floor(next() * from.length)] };
}
