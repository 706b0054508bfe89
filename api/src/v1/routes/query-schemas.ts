import { z } from 'zod';

/** Version 1 query parameters: every value arrives as a string; the services read them. */
const text = (description: string) => z.string().optional().describe(description);

const fields = text('comma-separated names from the sound record (unknown names are skipped)');
const p = text('page number, 1 for the first (a bogus value is page 1)');
const soundsPerPage = text('sounds per page (default 30, maximum 100)');

const cursor = text(
  'earshot: cursor paging instead of `p` (docs/api.md "Cursor paging"). `*` starts a walk that lists each sound public for its whole length exactly once, in any sort, while sounds are added, edited or removed; `next` and `previous` then carry the cursor of the page beside. 400 when expired (LIST_WALK_IDLE_MINUTES unused, default an hour), of another list, or given with `p`',
);

export const v1ListQuery = z.object({ p, sounds_per_page: soundsPerPage, fields, cursor });

export const v1SearchQuery = v1ListQuery.extend({
  q: text('query (default "+": every sound); +term mandatory, -term prohibited, "phrases"'),
  f: text('filter: field:value terms, ranges [a TO b]'),
  s: text('sort: score, duration_desc/asc, created_desc/asc, downloads_desc/asc, rating_desc/asc'),
  g: text('1: one sound per pack (with the grouping fields); 0 or empty: no grouping'),
});

export const v1ContentSearchQuery = v1ListQuery.extend({
  t: text('target: .descriptor:value pairs (vectors as comma-separated values)'),
  f: text('filter: descriptor and field terms, AND/OR, parentheses; sharp for #'),
  max_results: text('at most this many sounds in all (default 15)'),
});

export const v1GeotagQuery = v1ListQuery.extend({
  min_lat: text('south edge, -90 to 90'),
  max_lat: text('north edge, -90 to 90'),
  min_lon: text('west edge, -180 to 180'),
  max_lon: text('east edge, -180 to 180'),
});

export const v1SimilarQuery = v1ListQuery.extend({
  num_results: text('how many sounds, the queried one included (default 15, maximum 100)'),
  preset: text('lowlevel (default) or music'),
});

export const v1AnalysisQuery = z.object({
  all: text('true or 1: every descriptor, not only the recommended ones'),
});
