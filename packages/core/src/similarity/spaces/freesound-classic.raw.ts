import { type AnalysisTree, readDescriptor } from '../analysis-tree.ts';
import {
  applyTransform,
  CLASSIC_FEATURES,
  featureLabel,
  LEVEL_PATH,
  removeLevel,
} from './freesound-classic.features.ts';

/**
 * The transformed (not yet standardised) inputs of freesound_classic for one analysis, plus the
 * labels of inputs the analysis lacks. Shared by the space and by its calibration.
 */
export function transformedClassicInputs(analysis: AnalysisTree): {
  values: Float64Array;
  missing: string[];
} {
  const values = new Float64Array(CLASSIC_FEATURES.length);
  const missing: string[] = [];
  const cache = new Map<string, number | number[] | undefined>();
  const energy = readDescriptor(analysis, LEVEL_PATH);
  const needsLevel = CLASSIC_FEATURES.some((feature) => feature.level);
  CLASSIC_FEATURES.forEach((feature, i) => {
    if (!cache.has(feature.path)) cache.set(feature.path, readDescriptor(analysis, feature.path));
    const value = cache.get(feature.path);
    const raw = feature.index === undefined ? value : Array.isArray(value) ? value[feature.index] : undefined;
    if (typeof raw !== 'number') {
      missing.push(featureLabel(feature));
      return;
    }
    values[i] = applyTransform(
      feature.transform,
      removeLevel(feature, raw, typeof energy === 'number' ? energy : 0),
    );
  });
  // The level is named after the inputs, which say more about what the analysis lacks.
  if (needsLevel && typeof energy !== 'number') missing.push(LEVEL_PATH);
  return { values, missing };
}
