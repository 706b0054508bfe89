import { parentPort, workerData } from 'node:worker_threads';

const n: number = (workerData as { n: number }).n;
parentPort?.postMessage(n * 2 + 2);
