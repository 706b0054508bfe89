#!/usr/bin/env node
// Runs the compiled CLI (`npm install` builds it). The repository's tests and benchmarks resolve the
// workspace packages to their sources (the `@earshot/source` condition); there the CLI runs from its
// sources too, through tsx, so that a test exercises the code it sits beside.
const fromSources = [...process.execArgv, process.env.NODE_OPTIONS ?? '']
  .join(' ')
  .includes('@earshot/source');
if (fromSources) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
} else {
  await import('../dist/main.js');
}
