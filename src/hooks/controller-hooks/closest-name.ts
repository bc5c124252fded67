/**
 * The candidate nearest to a misspelt name, for "did you mean" hints, or `undefined` when none is
 * close enough to be a plausible typo (at most a third of the name's letters wrong, and at most 3).
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const allowedDistance = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= allowedDistance && (best === undefined || distance < best.distance)) {
      best = { candidate, distance };
    }
  }
  return best?.candidate;
}

/** Levenshtein distance, computed row by row. */
function editDistance(from: string, to: string): number {
  let previousRow = Array.from({ length: to.length + 1 }, (_, index) => index);
  for (let row = 1; row <= from.length; row++) {
    const currentRow = [row];
    for (let column = 1; column <= to.length; column++) {
      const substitution =
        (previousRow[column - 1] ?? 0) + (from[row - 1] === to[column - 1] ? 0 : 1);
      const insertion = (currentRow[column - 1] ?? 0) + 1;
      const deletion = (previousRow[column] ?? 0) + 1;
      currentRow.push(Math.min(substitution, insertion, deletion));
    }
    previousRow = currentRow;
  }
  return previousRow[to.length] ?? 0;
}
