#!/usr/bin/env node
// Thin shim: run the TypeScript CLI through tsx so there is no build step to forget.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../lib/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
