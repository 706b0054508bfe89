import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { IMAGE_SIZES, renderImages } from './images.ts';
import { columnSpectra } from './spectra.ts';
import { renderSpectrogram, SPECTROGRAM_MIN_HZ } from './spectrogram.ts';
import { columnPeaks, renderWaveform } from './waveform.ts';

const RATE = 44_100;

function sine(hz: number, seconds: number, amplitude: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  for (let i = 0; i < out.length; i++) out[i] = amplitude * Math.sin((2 * Math.PI * hz * i) / RATE);
  return out;
}

/** Deterministic white noise (xorshift), so the test never depends on Math.random. */
function noise(seconds: number, amplitude: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  let state = 0x12345678;
  for (let i = 0; i < out.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = amplitude * ((state >>> 0) / 0xffffffff - 0.5) * 2;
  }
  return out;
}

const pixel = (rgb: Uint8Array, width: number, x: number, y: number) => {
  const o = (y * width + x) * 3;
  return [rgb[o], rgb[o + 1], rgb[o + 2]] as const;
};
const brightness = (p: readonly number[]) => p[0] + p[1] + p[2];

function waveformOf(samples: Float32Array, width: number, height: number): Uint8Array {
  return renderWaveform(columnPeaks(samples, width), columnSpectra(samples, RATE, width), width, height);
}

/** Rows a column paints brighter than the dim zero line. */
function paintedRows(rgb: Uint8Array, width: number, height: number, x: number): number[] {
  const rows: number[] = [];
  for (let y = 0; y < height; y++) if (brightness(pixel(rgb, width, x, y)) > 150) rows.push(y);
  return rows;
}

describe('images', () => {
  it('have the contract sizes and formats: waveforms PNG, spectrograms JPEG', async () => {
    const images = await renderImages({ samples: noise(1, 0.3), sampleRate: RATE });
    const expected = {
      waveform_m: ['png', IMAGE_SIZES.m],
      waveform_l: ['png', IMAGE_SIZES.l],
      spectral_m: ['jpeg', IMAGE_SIZES.m],
      spectral_l: ['jpeg', IMAGE_SIZES.l],
    } as const;
    for (const [key, [format, size]] of Object.entries(expected)) {
      const meta = await sharp(images[key as keyof typeof images]).metadata();
      expect({ key, format: meta.format, width: meta.width, height: meta.height }).toEqual({
        key,
        format,
        ...size,
      });
    }
    expect(IMAGE_SIZES).toEqual({ m: { width: 120, height: 71 }, l: { width: 900, height: 201 } });
  });

  it('waveform: bars reach the amplitude and no further (full scale = full height)', () => {
    const { width, height } = IMAGE_SIZES.l;
    const half = waveformOf(sine(441, 2, 0.5), width, height);
    const rows = paintedRows(half, width, height, 450);
    // Amplitude 0.5 spans the middle half: rows 50..150 of 201.
    expect(Math.abs(rows[0] - height / 4)).toBeLessThanOrEqual(1.5);
    expect(Math.abs((rows.at(-1) ?? 0) - (height * 3) / 4)).toBeLessThanOrEqual(1.5);

    const full = waveformOf(sine(441, 2, 1), width, height);
    const fullRows = paintedRows(full, width, height, 450);
    expect(fullRows[0]).toBe(0);
    expect(fullRows.at(-1)).toBe(height - 1);
  });

  it('waveform: silence draws only the zero line, a single click one tall bar where it happens', () => {
    const { width, height } = IMAGE_SIZES.l;
    const silent = waveformOf(new Float32Array(RATE), width, height);
    for (let x = 0; x < width; x += 37) expect(paintedRows(silent, width, height, x)).toEqual([]);

    const click = new Float32Array(RATE / 2);
    click[Math.round(0.1 * RATE)] = 0.9;
    const image = waveformOf(click, width, height);
    const clickColumn = Math.floor((0.1 / 0.5) * width);
    expect(paintedRows(image, width, height, clickColumn).length).toBeGreaterThan(height * 0.4);
    expect(paintedRows(image, width, height, clickColumn + 50)).toEqual([]);
    expect(paintedRows(image, width, height, clickColumn - 50)).toEqual([]);
  });

  it('waveform colour follows the spectral centroid: a low hum is blue, hiss is orange', () => {
    const { width, height } = IMAGE_SIZES.m;
    const mid = Math.round((height - 1) / 2);
    const hum = pixel(waveformOf(sine(120, 1, 0.8), width, height), width, 60, mid - 5);
    const hiss = pixel(waveformOf(noise(1, 0.8), width, height), width, 60, mid - 5);
    expect(hum[2]).toBeGreaterThan(hum[0]);
    expect(hiss[0]).toBeGreaterThan(hiss[2]);
  });

  it('spectrogram: a 1 kHz tone lights the row of 1 kHz on the log axis; silence is black', () => {
    const { width, height } = IMAGE_SIZES.l;
    const samples = sine(1000, 2, 0.5);
    const rgb = renderSpectrogram(columnSpectra(samples, RATE, width), 0.5, height);
    let brightest = 0;
    for (let y = 0; y < height; y++) {
      if (brightness(pixel(rgb, width, 450, y)) > brightness(pixel(rgb, width, 450, brightest)))
        brightest = y;
    }
    const fraction = Math.log10(1000 / SPECTROGRAM_MIN_HZ) / Math.log10(RATE / 2 / SPECTROGRAM_MIN_HZ);
    expect(Math.abs(brightest - (height - 1) * (1 - fraction))).toBeLessThanOrEqual(2);
    // Far from the tone (top rows, ~20 kHz) stays dark.
    expect(brightness(pixel(rgb, width, 450, 2))).toBeLessThan(60);

    const silent = renderSpectrogram(columnSpectra(new Float32Array(RATE), RATE, width), 0, height);
    expect(silent.every((v) => v === 0)).toBe(true);
  });
});
