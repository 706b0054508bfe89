import type { AnalysisTree } from '../analysis-tree.ts';
import { IncompleteAnalysisError } from '../errors.ts';
import { CLASSIC_CONSTANTS } from './freesound-classic.constants.ts';
import { CLASSIC_CLIP, CLASSIC_FEATURES, CLASSIC_PATHS } from './freesound-classic.features.ts';
import { transformedClassicInputs } from './freesound-classic.raw.ts';
import type { SimilaritySpace } from './space.ts';

export const FREESOUND_CLASSIC = 'freesound_classic';

/**
 * Freesound's "Acoustic" space: 100 low-level statistics, each made level-free (measured against
 * the mean spectral energy where a gain would move it), transformed, standardised with
 * fixed constants ((x - centre) / scale, calibrated once on reference analyses so a vector never
 * changes as the catalogue grows), clipped to ±CLASSIC_CLIP, weighted by how little a lossy
 * re-encoding moves it on the calibration recordings, then L2-normalized by the index.
 * See docs/similarity.md for the list and the calibration.
 */
export const freesoundClassic: SimilaritySpace = {
  name: FREESOUND_CLASSIC,
  dimension: CLASSIC_FEATURES.length,
  description:
    'Acoustic: 100 standardised, level-free low-level spectral, timbral and temporal statistics, weighted by their robustness to lossy re-encoding',
  inputs: CLASSIC_PATHS,
  fromAnalysis(analysis: AnalysisTree): Float32Array {
    const { values, missing } = transformedClassicInputs(analysis);
    if (missing.length > 0) throw new IncompleteAnalysisError(FREESOUND_CLASSIC, missing);
    const vector = new Float32Array(values.length);
    for (let i = 0; i < values.length; i++) {
      const [center, scale, weight] = CLASSIC_CONSTANTS[i];
      const z = (values[i] - center) / scale;
      vector[i] = Math.min(CLASSIC_CLIP, Math.max(-CLASSIC_CLIP, z)) * weight;
    }
    return vector;
  },
};
