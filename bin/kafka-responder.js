#!/usr/bin/env node
// Runs the compiled CLI, dist/kafka-responder.cjs: one esbuild bundle made by
// `npm run build` (scripts/build-cli.mjs), which `npm ci` runs as the package's
// `prepare` script. After editing lib/, run `npm run build` again, or run this
// from source with KR_FROM_SOURCE=1 (TypeScript through tsx, ~1.5 s slower).
// CommonJS (bin/package.json), not an ES module: Node starts it about 4 ms sooner.
const { existsSync } = require('node:fs');
const { fileURLToPath, pathToFileURL } = require('node:url');

const pkg = new URL('../', pathToFileURL(__filename));
// `/kafka runbook <kind>` under `serve` reads the package's runbooks wherever it is started.
process.env.KR_RUNBOOKS_DIR ??= fileURLToPath(new URL('runbooks', pkg));
const command = process.argv[2] ?? '';
/** The command's own bundle where the build made one (scripts/build-cli.mjs COMMAND_BUNDLES), else the whole CLI. */
function bundleOf(name) {
  const own = /^[a-z][a-z-]{0,30}$/.test(name) ? fileURLToPath(new URL(`dist/kafka-responder-${name}.cjs`, pkg)) : null;
  return own && existsSync(own) ? own : fileURLToPath(new URL('dist/kafka-responder.cjs', pkg));
}
const bundle = bundleOf(command);

/**
 * A diagnosis of the sandbox starts its host probes before the bundle loads
 * (dist/early-probes.cjs, from lib/cli/early-probes.ts): they run while it
 * does, and the diagnosis takes them over. Without that file, or when the run
 * may not be of the sandbox, nothing starts here.
 */
function startEarlyProbes() {
  if (command !== 'diagnose') return null;
  try {
    const early = require(fileURLToPath(new URL('dist/early-probes.cjs', pkg)));
    return early.startEarlyProbes(process.argv.slice(3), process.env);
  } catch {
    return null;
  }
}

async function run() {
  let cli;
  let sandboxHosts = null;
  let saveCodeCache = () => {};
  if (process.env.KR_FROM_SOURCE === '1') {
    // Sources and tsx exist in a checkout only (the package ships the bundle, not lib/).
    if (!existsSync(new URL('lib/cli/main.ts', pkg))) {
      console.error('kafka-responder: KR_FROM_SOURCE=1 runs lib/ from a checkout, and this install has only the bundle: unset it');
      process.exit(1);
    }
    const { register } = await import('tsx/esm/api');
    register();
    cli = await import(new URL('lib/cli/main.ts', pkg).href);
  } else if (!existsSync(bundle)) {
    console.error('kafka-responder: the CLI is not built (dist/kafka-responder.cjs is missing): run `npm run build` (npm ci does it)');
    process.exit(1);
  } else if (process.env.KR_DEBUG) {
    // Node's own loader, for stack traces through the source map.
    process.setSourceMapsEnabled(true);
    sandboxHosts = startEarlyProbes();
    cli = require(bundle);
  } else {
    sandboxHosts = startEarlyProbes();
    // Required after the early probes start: its own modules (vm, zlib) take a few ms to load.
    ({ exports: cli, saveCodeCache } = require('./load-bundle.js').loadBundle(bundle, command));
  }
  const code = await cli.main(process.argv.slice(2), sandboxHosts ? { sandboxHosts } : {});
  // Probes the run did not take (it stopped early, or chose other hosts) stop with it.
  sandboxHosts?.discard();
  process.exitCode = code;
  saveCodeCache();
  // A one-shot report is done once its output is written: exit then, without
  // waiting for sockets or timers a client library may leave behind.
  if (code !== undefined && ['diagnose', 'can-restart'].includes(command)) {
    process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
  }
}

run();
