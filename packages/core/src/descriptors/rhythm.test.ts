import fs from 'node:fs';
import path from 'node:path';
import { ESSENTIA_REFERENCE_DIR } from '@earshot/fixtures';
import { describe, expect, it } from 'vitest';
import { bpmHistogram } from './rhythm.ts';

describe('bpmHistogram (the reference’s BpmHistogramDescriptors)', () => {
  it('weights a peak by its bin and both neighbours, spreads it over ±4 bins, then clears them', () => {
    // 4 beats at 120 BPM, 2 at 121, 1 at 124, 3 at 90 (10 intervals).
    const intervals = [
      ...Array(4).fill(0.5),
      ...Array(2).fill(60 / 121),
      60 / 124,
      ...Array(3).fill(60 / 90),
    ];
    const h = bpmHistogram(intervals);
    expect(h.firstPeakBpm).toBe(120);
    expect(h.firstPeakWeight).toBeCloseTo(0.6); // bins 119–121
    expect(h.firstPeakSpread).toBeCloseTo(1 - 0.6 / 0.7); // bins 116–124
    expect(h.secondPeakBpm).toBe(90);
    expect(h.secondPeakWeight).toBeCloseTo(0.3);
    expect(h.secondPeakSpread).toBeCloseTo(0);
    expect(h.histogram.reduce((a, b) => a + b, 0)).toBeCloseTo(1);
  });

  it('drops intervals under 60/250 s; a single cluster leaves a second peak of weight 0 at bin 0', () => {
    const h = bpmHistogram([0.1, 0.5, 0.5]);
    expect(h.firstPeakWeight).toBeCloseTo(1);
    expect(h.secondPeakBpm).toBe(0);
    expect(h.secondPeakWeight).toBe(0);
    expect(bpmHistogram([]).firstPeakWeight).toBe(0);
  });

  it('gives the reference’s own peak values from the reference’s beat intervals (40 recordings)', () => {
    const files = fs.readdirSync(ESSENTIA_REFERENCE_DIR).filter((f) => f.endsWith('.json'));
    expect(files.length).toBe(40);
    for (const file of files) {
      const { rhythm } = JSON.parse(fs.readFileSync(path.join(ESSENTIA_REFERENCE_DIR, file), 'utf8'));
      const h = bpmHistogram(rhythm.bpm_intervals);
      expect(h.firstPeakBpm).toBeCloseTo(rhythm.bpm_histogram_first_peak_bpm, 4);
      expect(h.firstPeakWeight).toBeCloseTo(rhythm.bpm_histogram_first_peak_weight, 4);
      expect(h.firstPeakSpread).toBeCloseTo(rhythm.bpm_histogram_first_peak_spread, 4);
      expect(h.secondPeakBpm).toBeCloseTo(rhythm.bpm_histogram_second_peak_bpm, 4);
      expect(h.secondPeakWeight).toBeCloseTo(rhythm.bpm_histogram_second_peak_weight, 4);
      expect(h.secondPeakSpread).toBeCloseTo(rhythm.bpm_histogram_second_peak_spread, 4);
    }
  });
});
