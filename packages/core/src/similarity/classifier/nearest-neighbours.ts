import type { LabelledVector, Prediction } from './types.ts';

export const DEFAULT_NEIGHBOURS = 7;

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let d = 0; d < a.length; d++) {
    dot += a[d] * b[d];
    na += a[d] * a[d];
    nb += b[d] * b[d];
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/**
 * The label most of the `k` nearest labelled vectors (by cosine, as the similarity index ranks)
 * carry, each neighbour's vote weighted by its similarity (shifted to 0–2 so that none is
 * negative). Confidence is the winner's share of the votes. Ties go to the label that sorts first.
 */
export function classifyNearest(
  labelled: LabelledVector[],
  vector: ArrayLike<number>,
  k = DEFAULT_NEIGHBOURS,
): Prediction {
  if (labelled.length === 0) throw new Error('no labelled examples to compare with');
  const nearest = labelled
    .map((e) => ({ label: e.label, similarity: cosine(e.vector, vector) }))
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, k);
  const votes = new Map<string, number>();
  let total = 0;
  for (const n of nearest) {
    const vote = 1 + n.similarity;
    votes.set(n.label, (votes.get(n.label) ?? 0) + vote);
    total += vote;
  }
  const [label, vote] = [...votes].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  return { label, confidence: total === 0 ? 0 : vote / total };
}
