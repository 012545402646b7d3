#!/usr/bin/env node
// Launches the TypeScript command line through tsx, so that `npx sparsedyn` works right after
// `npm ci` without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv);
