import { describe, expect, it } from 'vitest';
import { RenderedJson } from '../framework/http/rendered-json.ts';
import { RenderedCache } from './rendered-json.ts';

describe('RenderedJson and RenderedCache', () => {
  it('keeps the JSON text and the value it came from', () => {
    const body = new RenderedJson({ id: 1, name: 'a "quoted" name', tags: [] });
    expect(body.json).toBe('{"id":1,"name":"a \\"quoted\\" name","tags":[]}');
    expect(body.value).toEqual({ id: 1, name: 'a "quoted" name', tags: [] });
  });

  it('keeps the body encoded as UTF-8 once, so its length is in bytes', () => {
    const body = new RenderedJson({ name: 'café ☕' });
    expect(body.json).toBe('{"name":"café ☕"}');
    expect(body.bytes.equals(Buffer.from('{"name":"café ☕"}', 'utf8'))).toBe(true);
    expect(body.bytes.length).toBe(body.json.length + 3); // é is 2 bytes, ☕ 3
  });

  it('returns a remembered body until the ttl passes, and nothing when the ttl is 0', async () => {
    const cache = new RenderedCache(40);
    const body = cache.remember('k', { id: 1 });
    expect(cache.get('k')).toBe(body);
    expect(cache.get('other')).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(cache.get('k')).toBeUndefined();
    const never = new RenderedCache(0);
    expect(never.remember('k', { id: 1 }).json).toBe('{"id":1}');
    expect(never.get('k')).toBeUndefined();
  });

  it('drops the oldest entry when full', () => {
    const cache = new RenderedCache(60_000, 2);
    cache.remember('a', 1);
    cache.remember('b', 2);
    cache.remember('c', 3);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')?.value).toBe(2);
    expect(cache.get('c')?.value).toBe(3);
  });

  it('does not keep a value computed before a clear (a catalogue change landed while it was read)', () => {
    const cache = new RenderedCache(60_000);
    const before = cache.generation;
    cache.clear();
    expect(cache.remember('k', { stale: true }, before).value).toEqual({ stale: true });
    expect(cache.get('k')).toBeUndefined();
    cache.remember('k', { fresh: true }, cache.generation);
    expect(cache.get('k')?.value).toEqual({ fresh: true });
  });
});
