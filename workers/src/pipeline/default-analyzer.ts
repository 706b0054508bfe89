import fs from 'node:fs/promises';
import path from 'node:path';
import type { SoundAnalyzer } from './core-tools.ts';

const FRAME = 2048;

/**
 * Interim analyzer until the descriptors module of @earshot/core exports its own: level and
 * duration statistics and a per-frame RMS series, in the variant-A tree layout. Sounds analysed by
 * it have no similarity vectors (the spaces need the full descriptor set); reprocess them once the
 * real analyzer is wired in.
 */
export const defaultAnalyzer: SoundAnalyzer = async (signal, outDir) => {
  const { samples, sampleRate } = signal;
  const frames: number[] = [];
  let peak = 0;
  let sumSquares = 0;
  for (let start = 0; start < samples.length; start += FRAME) {
    let frameSum = 0;
    const end = Math.min(samples.length, start + FRAME);
    for (let i = start; i < end; i++) {
      const v = samples[i];
      frameSum += v * v;
      peak = Math.max(peak, Math.abs(v));
    }
    sumSquares += frameSum;
    frames.push(Math.sqrt(frameSum / Math.max(1, end - start)));
  }
  const rms = Math.sqrt(sumSquares / Math.max(1, samples.length));
  const tree = {
    metadata: { audio_properties: { length: signal.duration, analysis_sample_rate: sampleRate } },
    lowlevel: { rms: { mean: rms }, amplitude_peak: peak },
  };
  await fs.writeFile(path.join(outDir, 'analysis.json'), JSON.stringify(tree));
  await fs.writeFile(
    path.join(outDir, 'frames.json'),
    JSON.stringify({ frame_size: FRAME, hop_size: FRAME, lowlevel: { rms: frames } }),
  );
  return {
    analysisFile: 'analysis.json',
    framesFile: 'frames.json',
    analysis: {
      tree,
      flat: { duration: signal.duration, rms, amplitude_peak: peak },
      values: {},
      analyzer: 'interim-level',
    },
  };
};
