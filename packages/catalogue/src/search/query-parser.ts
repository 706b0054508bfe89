import { type SearchParameter, SearchSyntaxError } from './errors.ts';

/** One part of a text query: a word or a quoted phrase, required (default, or `+`) or prohibited (`-`). */
export interface QueryClause {
  readonly occur: 'must' | 'not';
  readonly text: string;
  readonly phrase: boolean;
  /** Offset of the clause in the query text. */
  readonly position: number;
}

/** A parsed text query; no clauses means "every sound". */
export interface TextQuery {
  readonly clauses: readonly QueryClause[];
}

export const QUERY_LIMITS = { maxLength: 1000, maxClauses: 32 } as const;

/** Values upstream treats as an empty query (they return every sound). */
const EMPTY_LIKE = new Set(['', '""', '" "', "''", "' '"]);

/**
 * Parses the v2 `query` / v1 `q` language (Solr dismax with every term mandatory): words,
 * "phrases", `+`/`-` prefixes. An odd number of double quotes makes the query behave as if it
 * had none. Boolean words (AND, OR) are ordinary words here, as in dismax.
 */
export function parseTextQuery(text: string | undefined, parameter: SearchParameter = 'query'): TextQuery {
  const src = text ?? '';
  if (src.length > QUERY_LIMITS.maxLength) {
    throw new SearchSyntaxError(
      parameter,
      `longer than ${QUERY_LIMITS.maxLength} characters`,
      QUERY_LIMITS.maxLength,
    );
  }
  const nul = src.indexOf('\u0000');
  // PostgreSQL text cannot hold NUL; refuse it here rather than as a database error.
  if (nul >= 0) throw new SearchSyntaxError(parameter, 'it contains a NUL character', nul);
  if (EMPTY_LIKE.has(src.trim())) return { clauses: [] };
  const quotes = [...src].filter((c) => c === '"').length;
  // Blank out unbalanced quotes rather than delete them, so positions stay those of the original text.
  const s = quotes % 2 === 1 ? src.replace(/"/g, ' ') : src;
  const clauses: QueryClause[] = [];
  let i = 0;
  while (i < s.length) {
    if (/\s/.test(s[i])) {
      i++;
      continue;
    }
    const position = i;
    let occur: QueryClause['occur'] = 'must';
    while (s[i] === '+' || s[i] === '-') {
      occur = s[i] === '-' ? 'not' : 'must';
      i++;
    }
    if (i >= s.length || /\s/.test(s[i])) continue; // a lone + or - is nothing
    let body: string;
    let phrase = false;
    if (s[i] === '"') {
      const close = s.indexOf('"', i + 1);
      body = s.slice(i + 1, close);
      phrase = true;
      i = close + 1;
    } else {
      const start = i;
      while (i < s.length && !/\s/.test(s[i]) && s[i] !== '"') i++;
      body = s.slice(start, i);
    }
    if (!body.trim()) continue;
    clauses.push({ occur, text: body, phrase, position });
    if (clauses.length > QUERY_LIMITS.maxClauses) {
      throw new SearchSyntaxError(parameter, `more than ${QUERY_LIMITS.maxClauses} terms`, position);
    }
  }
  return { clauses };
}

/** The integer terms of a query, which also match a sound's id (upstream searches the id field too). */
export function idTerms(query: TextQuery): number[] {
  return query.clauses
    .filter((c) => c.occur === 'must' && !c.phrase && /^\d{1,9}$/.test(c.text))
    .map((c) => Number(c.text));
}
