/**
 * Accept-header negotiation among a route's media types. Deliberately small: every API bundle
 * carries the edge (a negotiation library and its parser add about 8.5 KB to each), and the
 * route table's needs are one choice between JSON and text.
 */

/**
 * The offered media type the Accept header prefers: each type scores its best matching range's
 * `q`, plus a little for specificity (an exact range beats `type/*`, which beats `*\/*`); on a
 * tie the earlier offered type wins (JSON first). Undefined when the header is absent or accepts
 * none of them.
 */
export function preferredMediaType(
  accept: string | undefined,
  offered: readonly string[],
): string | undefined {
  if (!accept) return undefined;
  let best: { type: string; score: number } | undefined;
  for (const type of offered) {
    const score = scoreOf(accept, type);
    if (score > 0 && (!best || score > best.score)) best = { type, score };
  }
  return best?.type;
}

function scoreOf(accept: string, type: string): number {
  const [major] = type.split('/');
  let score = -1;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const r = range.trim();
    const specificity = r === type ? 0.002 : r === `${major}/*` ? 0.001 : r === '*/*' ? 0 : -1;
    if (specificity < 0) continue;
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (Number.isFinite(q)) score = Math.max(score, q + specificity);
  }
  return score;
}
