// Worker-thread side of the essentia.js reference: essentia.js installs process-wide exception handlers
// when loaded, so it runs in a thread of its own. One recording per request.
import { parentPort, workerData } from 'node:worker_threads';
import { EssentiaJs } from './essentia-js.ts';
import { referenceTree } from './extractor.ts';
import { lowLevelBanks } from './filterbank.ts';

export interface ReferenceRequest {
  id: number;
  samples: Float32Array;
  sampleRate: number;
}
export type ReferenceResponse = { id: number; tree: Record<string, unknown> } | { id: number; error: string };

const essentia = new EssentiaJs();
const banks = lowLevelBanks(essentia, (workerData as { banksFile?: string } | undefined)?.banksFile);

parentPort?.on('message', (request: ReferenceRequest) => {
  let response: ReferenceResponse;
  try {
    response = { id: request.id, tree: referenceTree(essentia, banks, request.samples, request.sampleRate) };
  } catch (error) {
    response = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(response);
});
