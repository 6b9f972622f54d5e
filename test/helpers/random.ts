/** A deterministic stream of uint32 values (xorshift32), so failures reproduce. */
export function randomWords(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state >>> 0;
  };
}
