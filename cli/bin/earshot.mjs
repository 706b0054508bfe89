#!/usr/bin/env node
// Runs the TypeScript sources directly (tsx), so `npx earshot` needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
