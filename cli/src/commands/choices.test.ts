import { RATE_LIMIT_LEVELS } from '@earshot/catalogue';
import { ACCEPTED_TYPES as CORE_ACCEPTED_TYPES } from '@earshot/core';
import { describe, expect, it } from 'vitest';
import { ACCEPTED_TYPES, RATE_LIMIT_LEVEL_NAMES } from './choices.ts';

describe('the values the help texts name', () => {
  it('are the analysis core’s accepted types', () => {
    expect(ACCEPTED_TYPES).toEqual(CORE_ACCEPTED_TYPES);
  });

  it('are the catalogue’s rate-limit levels, lowest first', () => {
    const byLevel = Object.entries(RATE_LIMIT_LEVELS)
      .sort(([, a], [, b]) => a - b)
      .map(([name]) => name);
    expect(RATE_LIMIT_LEVEL_NAMES).toEqual(byLevel);
  });
});
