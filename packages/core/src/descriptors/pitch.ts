import { Autocorrelation } from './spectrum.ts';

export interface PitchEstimate {
  /** Whether the YIN dip went below the threshold (a clear period was found). */
  clear?: boolean;
  /** Hz; 0 when the frame has no periodicity to speak of. */
  pitch: number;
  /** 1 − the YIN dip depth at the chosen lag (0…1). */
  confidence: number;
  /** Normalized autocorrelation at the chosen lag (0…1): how much of the energy is periodic. */
  salience: number;
}

const UNVOICED: PitchEstimate = { pitch: 0, confidence: 0, salience: 0 };

/**
 * YIN pitch tracker (de Cheveigné & Kawahara 2002) with the difference function obtained from one FFT
 * autocorrelation per frame: d(τ) = E[0, W−τ) + E[τ, W) − 2·r(τ). The lag is the first dip of the
 * cumulative-mean-normalized difference below `threshold` (else the global minimum), refined by a parabola.
 */
export class YinPitch {
  private readonly autocorrelation: Autocorrelation;
  private readonly r: Float64Array;
  private readonly cmnd: Float64Array;
  private readonly energyPrefix: Float64Array;
  private readonly minLag: number;
  private readonly maxLag: number;

  constructor(
    readonly frameSize: number,
    readonly sampleRate: number,
    minHz = 20,
    maxHz = 5000,
    private readonly threshold = 0.15,
  ) {
    this.autocorrelation = new Autocorrelation(frameSize);
    this.maxLag = Math.min(frameSize >> 1, Math.floor(sampleRate / minHz));
    this.minLag = Math.max(2, Math.floor(sampleRate / maxHz));
    this.r = new Float64Array(this.maxLag + 2);
    this.cmnd = new Float64Array(this.maxLag + 2);
    this.energyPrefix = new Float64Array(frameSize + 1);
  }

  estimate(frame: Float32Array): PitchEstimate {
    const { r, cmnd, energyPrefix: e } = this;
    const w = this.frameSize;
    for (let i = 0; i < w; i++) e[i + 1] = e[i] + frame[i] * frame[i];
    if (e[w] < 1e-10) return UNVOICED;
    this.autocorrelation.compute(frame, r);
    const maxLag = this.maxLag;
    cmnd[0] = 1;
    let running = 0;
    for (let t = 1; t <= maxLag + 1; t++) {
      // Energies of the two overlapping segments that r(τ) correlates.
      const d = Math.max(0, e[w - t] + (e[w] - e[t]) - 2 * r[t]);
      running += d;
      cmnd[t] = running > 0 ? (d * t) / running : 1;
    }
    let lag = -1;
    for (let t = this.minLag; t <= maxLag; t++) {
      if (cmnd[t] < this.threshold) {
        while (t + 1 <= maxLag && cmnd[t + 1] < cmnd[t]) t++;
        lag = t;
        break;
      }
    }
    const clear = lag >= 0;
    if (lag < 0) {
      lag = this.minLag;
      for (let t = this.minLag + 1; t <= maxLag; t++) if (cmnd[t] < cmnd[lag]) lag = t;
    }
    const a = cmnd[lag - 1];
    const b = cmnd[lag];
    const c = cmnd[lag + 1];
    const denom = a - 2 * b + c;
    const shift = denom > 0 ? (0.5 * (a - c)) / denom : 0;
    const refined = lag + Math.max(-0.5, Math.min(0.5, shift));
    const confidence = Math.max(0, Math.min(1, 1 - b));
    const overlapEnergy = Math.sqrt(e[w - lag] * (e[w] - e[lag]));
    const salience = overlapEnergy > 0 ? Math.max(0, Math.min(1, r[lag] / overlapEnergy)) : 0;
    return { pitch: this.sampleRate / refined, confidence, salience, clear };
  }
}

const NOTE_NAMES = ['C', 'C#', 'D', 'D#', 'E', 'F', 'F#', 'G', 'G#', 'A', 'A#', 'B'];

/** MIDI note number nearest to a frequency (A4 = 440 Hz = 69). */
export function frequencyToMidi(hz: number): number {
  return Math.round(69 + 12 * Math.log2(hz / 440));
}

/** Scientific pitch notation: 69 → "A4", 60 → "C4", 21 → "A0". */
export function midiToNoteName(midi: number): string {
  const pitchClass = ((midi % 12) + 12) % 12;
  return `${NOTE_NAMES[pitchClass]}${Math.floor(midi / 12) - 1}`;
}

export { NOTE_NAMES };
