import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { StoredAnalysis } from '@earshot/catalogue';
import { createLogger } from '@earshot/common';
import { fixture } from '@earshot/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coreAnalyzer } from './core-analyzer.ts';
import { CoreMediaTools } from './core-tools.ts';
import { ANALYSIS_DIR, readAnalysisHandOff, SIGNAL_FILE } from './hand-off.ts';

// The media stage hands its decoded signal to the analysis stage; the analysis must not change.
describe('the media stage handing its signal to the analysis stage', () => {
  let dir: string;
  const tools = new CoreMediaTools(coreAnalyzer, createLogger('silent'), { corePerJob: true });
  const signal = new AbortController().signal;

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'earshot-hand-off-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('gives the same descriptors as an analysis that decodes the file itself', async () => {
    const file = fixture('drums-100bpm');
    const probe = await tools.probe(file, path.basename(file));
    const signalFile = path.join(dir, 'work', SIGNAL_FILE);
    await fs.mkdir(path.join(dir, 'media'));
    const media = await tools.renderMedia(file, path.join(dir, 'media'), { signal, probe, signalFile });
    // One ffmpeg (no relayed encoder) still writes every preview.
    expect(
      Object.keys(media.files)
        .filter((k) => k.startsWith('preview'))
        .sort(),
    ).toEqual(['preview-hq-mp3', 'preview-hq-ogg', 'preview-lq-mp3', 'preview-lq-ogg']);
    for (const name of Object.values(media.files)) {
      expect((await fs.stat(path.join(dir, 'media', name))).size, name).toBeGreaterThan(0);
    }
    expect((await fs.stat(signalFile)).size).toBeGreaterThan(9 * 44_100 * 4);

    await fs.mkdir(path.join(dir, 'handed'));
    await fs.mkdir(path.join(dir, 'decoded'));
    const handed = await tools.analyze(file, path.join(dir, 'handed'), { signal, probe, signalFile });
    const decoded = await tools.analyze(file, path.join(dir, 'decoded'), { signal });
    const flat = (a: StoredAnalysis) => a.analysisB;
    expect(flat(handed.analysis).bpm).toBeGreaterThan(90);
    expect(flat(handed.analysis)).toEqual(flat(decoded.analysis));
  });

  it('decodes the file itself when the signal left for it does not fit the sound', async () => {
    const file = fixture('sine-a4');
    const probe = await tools.probe(file, path.basename(file));
    const signalFile = path.join(dir, 'short-signal.raw');
    await fs.writeFile(signalFile, new Uint8Array(new Float32Array(4410).buffer));
    await fs.mkdir(path.join(dir, 'sine'));
    const out = await tools.analyze(file, path.join(dir, 'sine'), { signal, probe, signalFile });
    const flat = out.analysis.analysisB;
    expect(flat.duration_effective).toBeGreaterThan(1.5);
  });

  it('with two cores, analyses while ffmpeg encodes and leaves the analysis whole for its stage', async () => {
    const lone = new CoreMediaTools(coreAnalyzer, createLogger('silent'));
    const file = fixture('drums-100bpm');
    const probe = await lone.probe(file, path.basename(file));
    const work = path.join(dir, 'lone-work');
    const signalFile = path.join(work, SIGNAL_FILE);
    const analysisHandOff = path.join(work, ANALYSIS_DIR);
    await fs.mkdir(path.join(dir, 'lone-media'));
    await fs.mkdir(path.join(dir, 'lone-own'));
    const percents: number[] = [];
    await lone.renderMedia(file, path.join(dir, 'lone-media'), {
      signal,
      probe,
      signalFile,
      analysisHandOff,
      onProgress: (p) => percents.push(p),
    });
    // The analysis was made here, so no signal was left to decode again.
    await expect(fs.stat(signalFile)).rejects.toThrow();
    const made = await readAnalysisHandOff(analysisHandOff);
    expect(made).toBeDefined();
    expect(made?.analysis.analysisB).toEqual(
      (await lone.analyze(file, path.join(dir, 'lone-own'), { signal })).analysis.analysisB,
    );
    expect(percents.at(-1)).toBe(100);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));

    // A hand-off missing one of its files is not used.
    await fs.rm(path.join(analysisHandOff, made?.analysisFile as string));
    expect(await readAnalysisHandOff(analysisHandOff)).toBeUndefined();
  });
});
