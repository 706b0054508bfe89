// Test helpers of the CLI's own tests (imported by a relative path; the package publishes none).
export { type EarshotRun, runEarshot } from './run-earshot.ts';
