import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { EarshotError } from '@earshot/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeSignal } from '../descriptors/analyze.ts';
import { analyzeClip, type ClipAnalysis } from '../descriptors/analyze-clip.ts';
import { ClipAnalysisPool } from '../descriptors/clip-pool.ts';
import {
  InvalidAnalysisFileError,
  parseAnalysisFile,
  readAnalysisExample,
} from '../descriptors/example-file.ts';
import { writeFramesFile } from '../descriptors/frames-file.ts';
import { decodeMono } from '../media/decode.ts';
import { makeTempDir, synth } from '../testing/audio.ts';
import { referenceAnalyses, referenceNames } from '../testing/similarity.ts';
import { readDescriptor } from './analysis-tree.ts';
import { exampleTarget, exampleVector, similarToAnalysis, similarToAudio } from './example-query.ts';
import { SimilarityIndex } from './similarity-index.ts';
import { FREESOUND_CLASSIC } from './spaces/freesound-classic.ts';
import { similarityVectorFromAnalysis } from './spaces/registry.ts';

/**
 * Search by example in the core: the three descriptor files earshot writes read back into one
 * tree (the frames file's statistics equal the statistics file's), the queries built from them,
 * clips analyzed in this thread and in the pool's threads, and the library's public functions.
 */

let dir: string;
let tone: string;
let long: string;

beforeAll(() => {
  dir = makeTempDir('earshot-example-core-');
  // A chirp with noise: spectral statistics that move from frame to frame.
  tone = synth(path.join(dir, 'tone.wav'), 'aevalsrc=0.4*sin(2*PI*(300+400*t)*t)+0.05*random(0):d=3:s=44100');
  long = synth(path.join(dir, 'long.flac'), 'sine=frequency=440:duration=45:sample_rate=44100');
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('descriptor files as examples', () => {
  it('reads the frames file into the statistics the statistics file holds', async () => {
    const signal = await decodeMono(tone);
    const result = await analyzeSignal(signal.samples, signal.sampleRate, { frames: true });
    const file = path.join(dir, 'frames.json');
    await writeFramesFile(result.frames as NonNullable<typeof result.frames>, file);
    const example = parseAnalysisFile(await fs.readFile(file));
    expect(example.layout).toBe('frames');
    for (const name of [
      'lowlevel.mfcc.mean',
      'lowlevel.barkbands.var',
      'lowlevel.spectral_flux.dmean',
      'sfx.tristimulus.mean',
      'tonal.hpcp.mean',
    ]) {
      expect(readDescriptor(example.tree, name), name).toEqual(readDescriptor(result.variantA, name));
    }
    const fromFrames = exampleVector(FREESOUND_CLASSIC, example.tree);
    const fromStats = similarityVectorFromAnalysis(FREESOUND_CLASSIC, result.variantA);
    expect(Array.from(fromFrames)).toEqual(Array.from(fromStats));
  });

  it('reads variant A as it is and variant B at its variant-A places, leaving out its voiced pitch', () => {
    const tree = referenceAnalyses[referenceNames[0]];
    expect(readAnalysisExample(tree)).toEqual({ layout: 'variant-a', tree });
    const b = readAnalysisExample({ mfcc: [1, 2, 3], spectral_centroid: 900, pitch: 220, note_name: 'A3' });
    expect(b.layout).toBe('variant-b');
    expect(readDescriptor(b.tree, 'lowlevel.mfcc.mean')).toEqual([1, 2, 3]);
    expect(readDescriptor(b.tree, 'lowlevel.spectral_centroid.mean')).toBe(900);
    expect(readDescriptor(b.tree, 'lowlevel.pitch.mean')).toBeUndefined();
    expect(exampleTarget(b.tree)).toEqual({
      kind: 'values',
      terms: [
        { descriptor: 'lowlevel.mfcc.mean', values: [1, 2, 3] },
        { descriptor: 'lowlevel.spectral_centroid.mean', values: [900] },
      ],
    });
  });

  it('refuses other documents with a message naming the problem', () => {
    const refuse = (text: string, message: RegExp) => {
      expect(() => parseAnalysisFile(text)).toThrow(InvalidAnalysisFileError);
      expect(() => parseAnalysisFile(text)).toThrow(message);
    };
    refuse('{', /not valid JSON/);
    refuse('"lowlevel"', /must hold a JSON object/);
    refuse('{"a": 1}', /not an earshot descriptor file/);
    refuse('{"lowlevel": {"mfcc": {"mean": [1, 1e999]}}}', /non-finite value at "lowlevel\.mfcc\.mean\[1\]"/);
    refuse(
      '{"format": "earshot-frames", "version": 1, "encoding": "float32le-base64", "groups": {}}',
      /no "lowlevel" group/,
    );
    expect(() => exampleVector(FREESOUND_CLASSIC, { lowlevel: {} })).toThrow(
      /lacks descriptors similarity space freesound_classic needs: lowlevel\.mfcc\.mean\[0\]/,
    );
  });
});

describe('similarToAnalysis and similarToAudio (the library API)', () => {
  it('finds the sound whose analysis is the example first, whichever reference sound it is', () => {
    const index = SimilarityIndex.create({ space: FREESOUND_CLASSIC, capacity: referenceNames.length });
    referenceNames.forEach((name, i) => {
      index.upsert(i + 1, similarityVectorFromAnalysis(FREESOUND_CLASSIC, referenceAnalyses[name]));
    });
    referenceNames.forEach((name, i) => {
      const [first] = similarToAnalysis(index, referenceAnalyses[name], { k: 3 });
      expect(first.id, name).toBe(i + 1);
      expect(first.score).toBeCloseTo(1, 5);
    });
  });

  it('analyzes a clip and finds the sound it was cut from', async () => {
    const index = SimilarityIndex.create({ space: FREESOUND_CLASSIC, capacity: 2 });
    index.upsert(1, exampleVector(FREESOUND_CLASSIC, (await analyzeClip(tone)).tree));
    index.upsert(2, exampleVector(FREESOUND_CLASSIC, (await analyzeClip(long)).tree));
    // Its first two seconds, 3 dB quieter, re-encoded.
    const cut = path.join(dir, 'cut.mp3');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', tone, '-t', '2', '-af', 'volume=-3dB', cut]);
    const { neighbours, clip: info } = await similarToAudio(index, cut, { k: 2 });
    expect(neighbours[0].id).toBe(1);
    expect(info.truncated).toBe(false);
    expect(info.analyzedSeconds).toBeGreaterThan(1.9);
  });
});

describe('clip analysis', () => {
  const pool = new ClipAnalysisPool(2);
  afterAll(async () => {
    await pool.close();
  });

  it('cuts a long clip to its first 30 seconds and says so', async () => {
    const clip = await analyzeClip(long);
    expect(clip.truncated).toBe(true);
    expect(clip.duration).toBeCloseTo(45, 1);
    expect(clip.analyzedSeconds).toBeCloseTo(30, 2);
    expect(clip.tree.metadata).toMatchObject({ audio_properties: { length: expect.closeTo(30, 2) } });
  });

  it('gives in its threads what the analysis gives in this one, for concurrent clips', async () => {
    const [here, ...there] = await Promise.all([
      analyzeClip(tone),
      pool.analyze(tone),
      pool.analyze(tone),
      pool.analyze(long, { maxSeconds: 5 }),
    ]);
    // Everything but the wall-clock timings of each run.
    const result = ({ timings: _, ...rest }: ClipAnalysis) => rest;
    expect(result(there[0])).toEqual(result(here));
    expect(result(there[1])).toEqual(result(here));
    expect(there[2].analyzedSeconds).toBeCloseTo(5, 2);
    expect(there[2].truncated).toBe(true);
  });

  it('passes a bad file back as the same 400 the analysis gives', async () => {
    const bad = path.join(dir, 'bad.wav');
    await fs.writeFile(bad, 'not audio at all');
    const error = await pool.analyze(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EarshotError);
    expect((error as EarshotError).status).toBe(400);
    const inThread = await analyzeClip(bad).catch((e: unknown) => e);
    expect((error as EarshotError).message).toBe((inThread as EarshotError).message);
  });
});
