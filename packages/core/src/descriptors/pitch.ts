import { YinDifference } from './pitch-yin.ts';

export interface PitchEstimate {
  /** Whether the YIN dip went below the threshold (a clear period was found). */
  clear?: boolean;
  /** Whether the CMND was still falling at the longest lag (the period may lie beyond the range). */
  beyondRange?: boolean;
  /** Hz; 0 when the frame has no periodicity to speak of. */
  pitch: number;
  /** 1 − the YIN dip depth at the chosen lag (0…1). */
  confidence: number;
}

const UNVOICED: PitchEstimate = { pitch: 0, confidence: 0 };

/**
 * YIN pitch tracker (de Cheveigné & Kawahara 2002) for the note and variant-B pitch, on the reference's
 * difference function (pitch-yin.ts: a window of half the frame, so lags up to half the frame). The lag is
 * the first dip of the CMND below `threshold` within [sampleRate/maxHz, sampleRate/minHz] (else the global
 * minimum there), refined by a parabola; confidence = 1 − CMND at the dip.
 */
export class YinPitch {
  private readonly difference: YinDifference;
  private readonly minLag: number;
  private readonly maxLag: number;

  constructor(
    readonly frameSize: number,
    readonly sampleRate: number,
    minHz = 20,
    maxHz = 5000,
    private readonly threshold = 0.15,
  ) {
    this.difference = new YinDifference(frameSize);
    // The parabola reads one lag past the last candidate.
    this.maxLag = Math.min((frameSize >> 1) - 1, Math.floor(sampleRate / minHz));
    this.minLag = Math.max(2, Math.floor(sampleRate / maxHz));
  }

  estimate(frame: Float32Array): PitchEstimate {
    this.difference.compute(frame);
    return this.pick(this.difference);
  }

  /** The estimate from a difference function already computed on the frame (same frame size). */
  pick(difference: YinDifference): PitchEstimate {
    if (difference.energy < 1e-10) return UNVOICED;
    const { cmnd } = difference;
    const maxLag = this.maxLag;
    let lag = -1;
    for (let t = this.minLag; t <= maxLag; t++) {
      if (cmnd[t] < this.threshold) {
        while (t + 1 <= maxLag && cmnd[t + 1] < cmnd[t]) t++;
        lag = t;
        break;
      }
    }
    let clear = lag >= 0;
    if (lag < 0) {
      lag = this.minLag;
      for (let t = this.minLag + 1; t <= maxLag; t++) if (cmnd[t] < cmnd[lag]) lag = t;
    }
    // A minimum still falling at the longest lag has the period beyond the range: not a clear estimate.
    const beyondRange = lag === maxLag && cmnd[lag + 1] < cmnd[lag];
    if (beyondRange) clear = false;
    const a = cmnd[lag - 1];
    const b = cmnd[lag];
    const c = cmnd[lag + 1];
    const denom = a - 2 * b + c;
    const shift = denom > 0 ? (0.5 * (a - c)) / denom : 0;
    const refined = lag + Math.max(-0.5, Math.min(0.5, shift));
    const confidence = Math.max(0, Math.min(1, 1 - b));
    return { pitch: this.sampleRate / refined, confidence, clear, beyondRange };
  }
}

/** MIDI note number nearest to a frequency (A4 = 440 Hz = 69). */
export function frequencyToMidi(hz: number): number {
  return Math.round(69 + 12 * Math.log2(hz / 440));
}
