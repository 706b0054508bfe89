import type { DatePeriod } from './date-math.ts';
import type { FieldDef } from './fields.ts';

/** What a condition is about: a registered field, or a path into a sound's full analysis (content search). */
export type FieldRef =
  | { readonly kind: 'field'; readonly def: FieldDef }
  | { readonly kind: 'analysis'; readonly name: string; readonly path: readonly string[] };

/** A single value after type checking against its field. */
export type FilterValue =
  | { readonly type: 'text'; readonly text: string; readonly phrase: boolean }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'number'; readonly value: number }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'date'; readonly period: DatePeriod }
  | { readonly type: 'pack'; readonly packId: number };

export interface RangeBound {
  readonly value: number | Date;
  readonly inclusive: boolean;
}

export type FilterNode =
  | { readonly kind: 'and'; readonly children: readonly FilterNode[] }
  | { readonly kind: 'or'; readonly children: readonly FilterNode[] }
  | { readonly kind: 'not'; readonly child: FilterNode }
  | { readonly kind: 'all' }
  | { readonly kind: 'match'; readonly field: FieldRef; readonly value: FilterValue }
  | {
      readonly kind: 'range';
      readonly field: FieldRef;
      readonly lower: RangeBound | null;
      readonly upper: RangeBound | null;
    }
  | { readonly kind: 'exists'; readonly field: FieldRef }
  | { readonly kind: 'geo-distance'; readonly lat: number; readonly lon: number; readonly km: number }
  | {
      readonly kind: 'geo-box';
      readonly minLat: number;
      readonly minLon: number;
      readonly maxLat: number;
      readonly maxLon: number;
    };
