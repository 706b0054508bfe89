import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('applies the embedded defaults', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c.PORT).toBe(8000);
    expect(c.HOST).toBe('127.0.0.1');
    expect(c.dataDir).toBe('/srv/app/data');
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.REDIS_URL).toBeUndefined();
    expect(c.API_VARIANT).toBe('B');
  });

  it('refuses a bad value and names the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x/y' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ API_VARIANT: 'C' })).toThrow(/API_VARIANT/);
    expect(() => loadConfig({ TRUST_PROXY: 'maybe' })).toThrow(/TRUST_PROXY/);
  });

  it('reads TRUST_PROXY as a number of proxy hops, the yes/no values of before meaning 0 and 1', () => {
    expect(loadConfig({}).TRUST_PROXY).toBe(0);
    for (const [value, hops] of [
      ['false', 0],
      ['0', 0],
      ['no', 0],
      ['', 0],
      ['true', 1],
      ['1', 1],
      ['YES', 1],
      ['2', 2],
      [' 3 ', 3],
    ] as const) {
      expect(loadConfig({ TRUST_PROXY: value }).TRUST_PROXY, value).toBe(hops);
    }
    for (const bad of ['-1', '1.5', '100', '01', 'two']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY/);
    }
  });

  it('reads the clip threads and their niceness, unset by default, 0-19 for the niceness', () => {
    const unset = loadConfig({});
    expect(unset.CLIP_THREADS).toBeUndefined();
    expect(unset.CLIP_THREAD_NICENESS).toBeUndefined();
    const set = loadConfig({ CLIP_THREADS: '3', CLIP_THREAD_NICENESS: '0' });
    expect(set.CLIP_THREADS).toBe(3);
    expect(set.CLIP_THREAD_NICENESS).toBe(0);
    expect(() => loadConfig({ CLIP_THREADS: '0' })).toThrow(/CLIP_THREADS/);
    expect(() => loadConfig({ CLIP_THREAD_NICENESS: '20' })).toThrow(/CLIP_THREAD_NICENESS/);
  });

  it('reads how long a cursor walk is kept: 60 minutes unless set, at least 1, at most a week', () => {
    expect(loadConfig({}).LIST_WALK_IDLE_MINUTES).toBe(60);
    expect(loadConfig({ LIST_WALK_IDLE_MINUTES: '15' }).LIST_WALK_IDLE_MINUTES).toBe(15);
    for (const bad of ['0', '-5', 'an hour', String(8 * 24 * 60)])
      expect(() => loadConfig({ LIST_WALK_IDLE_MINUTES: bad }), bad).toThrow(/LIST_WALK_IDLE_MINUTES/);
  });

  it('accepts service URLs and treats an empty one as unset', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u@h:5432/db', REDIS_URL: '' });
    expect(c.DATABASE_URL).toBe('postgres://u@h:5432/db');
    expect(c.REDIS_URL).toBeUndefined();
  });
});

describe('README configuration table', () => {
  it('lists every variable the config module reads', async () => {
    const fs = await import('node:fs');
    const readme = fs.readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    const { configSchema } = await import('./config.ts');
    for (const variable of Object.keys(configSchema.shape)) {
      expect(readme, `README is missing ${variable}`).toMatch(new RegExp(`\\|\\s*\`${variable}\`\\s*\\|`));
    }
  });
});
