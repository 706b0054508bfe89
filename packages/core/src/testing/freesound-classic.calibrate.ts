// Regenerates the calibration extract and the space's constants:
// `npx tsx packages/core/src/testing/freesound-classic.calibrate.ts <dir of Essentia FreesoundExtractor
// JSONs>` (default: the copy of the essentia-native reference set in fixtures/reference/, taken from
// ../shared/reference/essentia-native). The weights come from the codec pairs in
// freesound-classic.codec.json (freesound-classic.codec.ts writes them). Kept with the test tooling:
// calibration is development work, never a library call.
import fs from 'node:fs';
import path from 'node:path';
import type { AnalysisTree } from '../similarity/analysis-tree.ts';
import { CLASSIC_FEATURES } from '../similarity/spaces/freesound-classic.features.ts';
import {
  type CodecPair,
  calibrateClassic,
  codecWeights,
  extractClassicInputs,
  renderConstantsModule,
} from './freesound-classic.calibration.ts';

const here = path.dirname(new URL(import.meta.url).pathname);
const sourceDir =
  process.argv[2] ?? path.join(here, '..', '..', '..', '..', 'fixtures', 'reference', 'essentia-native');

const files = fs
  .readdirSync(sourceDir)
  .filter((f) => f.endsWith('.json'))
  .sort();
const extract: Record<string, AnalysisTree> = {};
for (const file of files) {
  const tree = JSON.parse(fs.readFileSync(path.join(sourceDir, file), 'utf8')) as AnalysisTree;
  extract[file.replace(/\.json$/, '')] = extractClassicInputs(tree);
}
const constants = calibrateClassic(Object.values(extract));
const pairs = JSON.parse(fs.readFileSync(path.join(here, 'freesound-classic.codec.json'), 'utf8')) as Record<
  string,
  CodecPair
>;
const weights = codecWeights(constants, Object.values(pairs));
fs.writeFileSync(path.join(here, 'freesound-classic.reference.json'), `${JSON.stringify(extract)}\n`);
fs.writeFileSync(
  path.join(here, '..', 'similarity', 'spaces', 'freesound-classic.constants.ts'),
  renderConstantsModule(
    constants,
    weights,
    `${files.length} essentia-native reference analyses and ${Object.keys(pairs).length} codec pairs`,
  ),
);
process.stdout.write(`calibrated ${CLASSIC_FEATURES.length} inputs on ${files.length} analyses\n`);
