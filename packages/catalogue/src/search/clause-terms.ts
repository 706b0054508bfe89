import { type Kysely, sql } from 'kysely';
import type { PhraseChain } from './multi-lexeme-rank.ts';
import type { QueryClause } from './query-parser.ts';
import { TS_CONFIG } from './search-schema.ts';

/**
 * What one clause of a text query asks of a document, as PostgreSQL's analyzer makes it: every
 * lexeme (none for stopwords only), and for a quoted phrase of two lexemes or more the chain their
 * positions must form. The posting index answers with these (posting-search.ts).
 */
export interface ClauseTerms {
  readonly lexemes: readonly string[];
  readonly phrase?: PhraseChain;
}

/**
 * Each clause's terms, from PostgreSQL's own tsquery of it (`plainto_tsquery` for a word,
 * `phraseto_tsquery` for a phrase, in the search configuration), one statement for all of them.
 * null for a clause whose tsquery is more than the index matches: a word's must be lexemes joined
 * by `&`, a phrase's lexemes joined by `<N>` (a configuration that gave one word several lexemes
 * at one place would give `|` or a group; those clauses stay with PostgreSQL).
 */
export async function clauseTerms(
  db: Kysely<any>,
  clauses: readonly Pick<QueryClause, 'text' | 'phrase'>[],
): Promise<(ClauseTerms | null)[]> {
  const cfg = sql.lit(TS_CONFIG);
  const rows = (
    await sql<{ q: string }>`select (case when k = 'phrase' then phraseto_tsquery(${cfg}, t)
        else plainto_tsquery(${cfg}, t) end)::text as q
      from unnest(${clauses.map((c) => c.text)}::text[], ${clauses.map((c) => (c.phrase ? 'phrase' : 'word'))}::text[])
        with ordinality as x(t, k, n)
      order by n`.execute(db)
  ).rows;
  return rows.map((r, i) => readClauseQuery(r.q, clauses[i].phrase));
}

/** The terms of a tsquery's text as PostgreSQL prints it, or null when it is not a plain chain (see clauseTerms). */
export function readClauseQuery(text: string, phrase: boolean): ClauseTerms | null {
  const lexemes: string[] = [];
  const distances: number[] = [];
  let i = 0;
  const skipSpaces = () => {
    while (text[i] === ' ') i++;
  };
  skipSpaces();
  while (i < text.length) {
    if (lexemes.length) {
      // An operator between two lexemes: `&` for words, `<->` or `<N>` for a phrase.
      if (!phrase && text[i] === '&') i++;
      else if (phrase && text[i] === '<') {
        const close = text.indexOf('>', i);
        if (close < 0) return null;
        const op = text.slice(i + 1, close);
        const distance = op === '-' ? 1 : /^\d+$/.test(op) ? Number(op) : Number.NaN;
        if (!Number.isInteger(distance)) return null;
        distances.push(distance);
        i = close + 1;
      } else return null;
      skipSpaces();
    }
    if (text[i] !== "'") return null;
    // A quoted lexeme: PostgreSQL doubles a quote and puts a backslash before a backslash.
    let lexeme = '';
    for (i++; ; ) {
      if (i >= text.length) return null;
      const c = text[i];
      if (c === '\\') {
        lexeme += text[i + 1] ?? '';
        i += 2;
      } else if (c === "'" && text[i + 1] === "'") {
        lexeme += "'";
        i += 2;
      } else if (c === "'") {
        i++;
        break;
      } else {
        lexeme += c;
        i++;
      }
    }
    lexemes.push(lexeme);
    // A weight or prefix mark (`:*`, `:A`) never comes from plain text; if it does, not ours.
    if (i < text.length && text[i] !== ' ') return null;
    skipSpaces();
  }
  return phrase && lexemes.length > 1 ? { lexemes, phrase: { lexemes, distances } } : { lexemes };
}
