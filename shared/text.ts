/** Small wording helpers for messages people read. */
import { distance } from 'fastest-levenshtein';

/** "an ObjectStore", "a ClusterWarehouse": the indefinite article a word takes (by its first letter). */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`;
}

/**
 * The names closest to a mistyped one (edit distance at most a third of its length, at least 2),
 * nearest first: what "did you mean" offers instead of listing every valid name.
 */
function closestNames(input: string, names: readonly string[], max = 3): string[] {
  const typed = input.slice(0, 100).toLowerCase();
  const limit = Math.max(2, Math.floor(typed.length / 3));
  return names
    .map((name) => ({ name, d: distance(typed, name.toLowerCase()) }))
    .filter(({ d }) => d <= limit)
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, max)
    .map(({ name }) => name);
}

/** ` (did you mean a or b?)`, or nothing when no name is close. */
export function didYouMean(input: string, names: readonly string[]): string {
  const close = closestNames(input, names);
  if (close.length === 0) return '';
  return ` (did you mean ${close.length === 1 ? close[0] : `${close.slice(0, -1).join(', ')} or ${close.at(-1)}`}?)`;
}
