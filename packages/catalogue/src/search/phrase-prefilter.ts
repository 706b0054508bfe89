import { type RawBuilder, sql } from 'kysely';
import type { TextQuery } from './query-parser.ts';
import { TS_CONFIG } from './search-schema.ts';

/**
 * PostgreSQL's English stopword list (tsearch_data/english.stop): these words leave a gap in a
 * phrase instead of a lexeme, so they never form an adjacent pair.
 */
const ENGLISH_STOPWORDS = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her ' +
    'hers herself it its itself they them their theirs themselves what which who whom this that these ' +
    'those am is are was were be been being have has had having do does did doing a an the and but if or ' +
    'because as until while of at by for with about against between into through during before after ' +
    'above below to from up down in out on off over under again further then once here there when where ' +
    'why how all any both each few more most other some such no nor not only own same so than too very s ' +
    't can will just don should now'
  ).split(' '),
);

/** Whether the text has two neighbouring words that both index as lexemes (a pair the phrase table holds). */
function hasAdjacentPair(text: string): boolean {
  const words = text.toLowerCase().split(/[^\p{L}\p{N}]+/u);
  for (let i = 0; i + 1 < words.length; i++) {
    const [a, b] = [words[i], words[i + 1]];
    if (a && b && !ENGLISH_STOPWORDS.has(a) && !ENGLISH_STOPWORDS.has(b)) return true;
  }
  return false;
}

/**
 * A necessary condition for the query's required phrases (over the search document aliased `s`):
 * the sound holds every adjacent lexeme pair of each phrase (search_phrase, GIN-indexed). The
 * tsvector phrase check still decides; this only lets the phrase-pair index find the few
 * candidates instead of checking positions in every sound that has all the words.
 *
 * null when no required phrase has a pair. The test above only decides whether the condition is
 * worth adding: if it is wrong about a phrase, the pair array is empty and matches every sound
 * (slower, never a lost match).
 */
export function phrasePrefilter(query: TextQuery): RawBuilder<boolean> | null {
  const cfg = sql.lit(TS_CONFIG);
  const grams = query.clauses
    .filter((c) => c.occur === 'must' && c.phrase && hasAdjacentPair(c.text))
    .map((c) => sql`search_phrase_grams(to_tsvector(${cfg}, ${c.text}::text))`);
  if (!grams.length) return null;
  // Written as IN so the planner can drive the search from the pair index (a semi-join).
  return sql<boolean>`s.id in (select p.sound_id from search_phrase p where p.grams @> (${sql.join(grams, sql` || `)}))`;
}
