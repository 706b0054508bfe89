import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectContractTypes } from '../testing/descriptors.ts';
import { analyzeSignal } from './analyze.ts';
import { descriptorLayout, normalizationRanges, normalizeTree } from './descriptor-layout.ts';
import { stopEssentiaWorker } from './essentia-client.ts';
import { decodeFrameValues, type FramesFile, writeFramesFile } from './frames-file.ts';

const SR = 44100;
afterAll(stopEssentiaWorker);

/** Every number anywhere in a JSON-like value, with its path. */
function numbers(value: unknown, path = ''): [string, number][] {
  if (typeof value === 'number') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => numbers(v, `${path}[${i}]`));
  if (value && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => numbers(v, path ? `${path}.${k}` : k));
  return [];
}

function noise(seconds: number, gain: number, seed = 7): Float32Array {
  let s = seed;
  return Float32Array.from({ length: Math.round(seconds * SR) }, () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return Math.max(-1, Math.min(1, gain * (s / 2 ** 32 - 0.5) * 2));
  });
}

const awkward: [string, Float32Array][] = [
  ['empty', new Float32Array(0)],
  ['one sample', Float32Array.of(0.5)],
  ['1 ms of noise', noise(0.001, 0.5)],
  ['3 s of digital silence', new Float32Array(3 * SR)],
  ['clipped noise (12 dB over full scale)', noise(2, 4)],
  ['DC offset', new Float32Array(SR).fill(0.5)],
  ['a single impulse', Float32Array.from({ length: SR }, (_, i) => (i === 1000 ? 1 : 0))],
];

describe('no NaN or Infinity, every field typed, on awkward signals', () => {
  it.each(awkward)('%s', async (_name, signal) => {
    const r = await analyzeSignal(signal, SR, { frames: true });
    expectContractTypes(r.variantB);
    for (const [path, v] of [...numbers(r.variantB), ...numbers(r.variantA)])
      expect(Number.isFinite(v), path).toBe(true);
    for (const group of Object.values(r.frames?.groups ?? {})) {
      for (const [name, d] of Object.entries(group.descriptors)) {
        const values = decodeFrameValues(d.data);
        expect(values.length, name).toBe(group.frames * d.dims);
        expect(values.every(Number.isFinite), name).toBe(true);
      }
    }
  });

  it('reads silence as silence', async () => {
    const { variantB } = await analyzeSignal(new Float32Array(3 * SR), SR);
    expect(variantB).toMatchObject({
      silence_rate: 1,
      onset_count: 0,
      single_event: false,
      loudness: -70,
      loopable: false,
    });
    // The pitch fields and the note are the reference pitch track's, which reads the faint noise the
    // reference puts into silent frames: some frequency, with next to no confidence.
    expect(variantB.note_confidence).toBeLessThan(0.2);
  });
});

describe('frames file and descriptor layout', () => {
  it('stays under 3 MB per audio minute and decodes to the frame counts', async () => {
    const r = await analyzeSignal(noise(10, 0.3), SR, { frames: true });
    const bytes = Buffer.byteLength(JSON.stringify(r.frames));
    expect(bytes * 6).toBeLessThan(3 * 1024 * 1024);
    const low = r.frames?.groups.lowlevel;
    // FrameCutter's count: every frame whose start (centre − 1024) is still inside the signal.
    expect(low?.frames).toBe(Math.ceil((10 * SR + 1024) / 1024));
    expect(low?.descriptors.mfcc.dims).toBe(13);
    const times = decodeFrameValues(low?.times ?? '');
    expect(times[1]).toBeCloseTo(1024 / SR, 6);
  });

  it('streams the frames file byte for byte as JSON.stringify writes it', async () => {
    const r = await analyzeSignal(noise(3, 0.3), SR, { frames: true });
    const file = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-frames-')), 'frames.json');
    try {
      const bytes = await writeFramesFile(r.frames as FramesFile, file);
      const text = await fs.readFile(file, 'utf8');
      expect(text).toBe(JSON.stringify(r.frames));
      expect(bytes).toBe(Buffer.byteLength(text));
      expect(Object.keys(JSON.parse(text).groups.lowlevel)).toEqual([
        'frame_size',
        'hop_size',
        'frames',
        'times',
        'descriptors',
      ]);
    } finally {
      await fs.rm(path.dirname(file), { recursive: true, force: true });
    }
  });

  it('splits fixed one-/multi-dimensional and variable-length names, and normalizes to [0, 1]', async () => {
    const a = await analyzeSignal(noise(2, 0.1), SR);
    const b = await analyzeSignal(noise(2, 0.8, 3), SR);
    const layout = descriptorLayout(a.variantA);
    expect(layout['fixed-length']['one-dimensional']).toContain('lowlevel.spectral_centroid.mean');
    expect(layout['fixed-length']['one-dimensional']).toContain('tonal.key_key');
    expect(layout['fixed-length']['multi-dimensional']).toContain('lowlevel.mfcc.mean');
    expect(layout['variable-length']).toEqual(
      expect.arrayContaining(['rhythm.onset_times', 'rhythm.beats_position']),
    );
    const ranges = normalizationRanges([a.variantA, b.variantA]);
    const normalized = normalizeTree(b.variantA, ranges);
    const variable = layout['variable-length'];
    const leaves = numbers(normalized).filter(
      ([p]) => !p.startsWith('metadata') && !variable.some((v) => p.startsWith(v)),
    );
    for (const [path, v] of leaves) {
      expect(v, path).toBeGreaterThanOrEqual(0);
      expect(v, path).toBeLessThanOrEqual(1);
    }
    // b is the louder of the two, so its integrated loudness is the top of the range.
    expect(
      (normalized.lowlevel as { loudness_ebu128: { integrated: number } }).loudness_ebu128.integrated,
    ).toBe(1);
  });
});
