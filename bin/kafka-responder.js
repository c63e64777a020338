#!/usr/bin/env node
// Runs the compiled CLI, dist/kafka-responder.mjs: one esbuild bundle made by
// `npm run build` (scripts/build-cli.mjs), which `npm ci` runs as the package's
// `prepare` script. After editing lib/, run `npm run build` again, or run this
// from source with KR_FROM_SOURCE=1 (TypeScript through tsx, ~1.5 s slower).
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const pkg = new URL('../', import.meta.url);
// The V8 code cache of the bundle (Node >= 22.1; a no-op on older Node) in
// $NODE_COMPILE_CACHE or the temp dir: later runs skip most of its compilation.
module.enableCompileCache?.();
if (process.env.KR_DEBUG) process.setSourceMapsEnabled(true);
// `/kafka runbook <kind>` under `serve` reads the package's runbooks wherever it is started.
process.env.KR_RUNBOOKS_DIR ??= fileURLToPath(new URL('runbooks', pkg));

let cli;
if (process.env.KR_FROM_SOURCE === '1') {
  // Sources and tsx exist in a checkout only (the package ships the bundle, not lib/).
  if (!existsSync(new URL('lib/cli/main.ts', pkg))) {
    console.error('kafka-responder: KR_FROM_SOURCE=1 runs lib/ from a checkout, and this install has only the bundle: unset it');
    process.exit(1);
  }
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(new URL('lib/cli/main.ts', pkg).href);
} else {
  try {
    cli = await import(new URL('dist/kafka-responder.mjs', pkg).href);
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('kafka-responder.mjs')) throw err;
    console.error('kafka-responder: the CLI is not built (dist/kafka-responder.mjs is missing): run `npm run build` (npm ci does it)');
    process.exit(1);
  }
}
const code = await cli.main(process.argv.slice(2));
process.exitCode = code;
// A one-shot report is done once its output is written: exit then, without
// waiting for sockets or timers a client library may leave behind.
if (code !== undefined && ['diagnose', 'can-restart'].includes(process.argv[2] ?? '')) {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}
