// Builds the CLI into an ESM bundle, dist/kafka-responder.mjs and the chunks it
// loads on demand (dist/chunks/), that bin/kafka-responder.js runs with plain
// Node (no TypeScript loader at run time).
//
//   npm run build          (the package's `prepare` script: `npm ci` runs it;
//                           test/global-setup.ts runs it before integration tests)
//
// Same esbuild settings as the Lambda bundles (serverless.yml `custom.esbuild`):
// ESM with a require() banner for the bundled CommonJS (kafkajs, its protocol
// internals that lib/kafka/wire.ts imports, the AWS SDK), and the same
// not-bundled stubs for Bolt's unused receivers. What the CLI reads at run time:
//   - the host scripts: lib/hosts/*.sh, inlined as text (handlers/build/esbuild-plugins.cjs);
//   - runbooks/: bin/kafka-responder.js points KR_RUNBOOKS_DIR at the package's copy;
//   - the sandbox: writes its own files, and finds Kafka in ~/.cache/kafka-responder.
// `serve`'s DynamoDB-compatible store, dynalite, is bundled in its in-memory mode
// only (below): the bundle loads no native module and needs nothing installed.
// Commands stay lazily loaded, and are not even read until needed: with code
// splitting each dynamic import() is its own chunk (shared code in shared
// chunks), so `diagnose` reads and compiles ~0.9 MB (kafkajs, zod, the
// diagnosis, the host scripts) and never Bolt, the AWS SDK, dynalite or the
// chart renderer; one 2.9 MB file cost ~100 ms of parsing on every start.
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import handlerPlugins from '../handlers/build/esbuild-plugins.cjs';

const root = fileURLToPath(new URL('..', import.meta.url));
export const CLI_BUNDLE = join(root, 'dist', 'kafka-responder.mjs');
const CHUNKS = join(root, 'dist', 'chunks');
/** A chunk the new build no longer names is removed once this old (a CLI started before the build may still load it). */
const STALE_CHUNK_MS = 10 * 60 * 1000;

// dynalite, as `serve`'s in-process store, bundled as it runs there (in memory, no native module):
//   - it keeps tables in memory-level unless given a `path`, yet requires `level` (→ classic-level,
//     a native addon found through node-gyp-build(__dirname)) eagerly, which an ESM bundle cannot
//     load (`__dirname is not defined`). `serve` never gives a path, so `level` is replaced by a
//     class that says so if anything ever tries;
//   - it loads its actions with require('./actions/' + name): esbuild bundles every file of the
//     folder under its file name, so the lookup gets the `.js` the file name has.
// The build fails if dynalite's loader no longer looks like that (then review this plugin).
const DYNALITE_LOADERS = [/require\('\.\/actions\/' \+ action\)/g, /require\('\.\/validations\/' \+ action\)/g];
const dynaliteInMemory = {
  name: 'kafka-responder-dynalite-in-memory',
  setup(build) {
    build.onResolve({ filter: /^level$/ }, (args) =>
      /[\\/]node_modules[\\/]dynalite[\\/]/.test(args.importer) ? { path: 'level', namespace: 'dynalite-in-memory' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'dynalite-in-memory' }, () => ({
      contents:
        'exports.Level = class Level { constructor() { throw new Error("dynalite on disk (its path option) is not in the kafka-responder bundle: serve keeps dynalite in memory; set KR_APPROVALS_DYNAMODB_ENDPOINT for a store that outlives serve"); } };\n',
      loader: 'js',
    }));
    build.onLoad({ filter: /[\\/]node_modules[\\/]dynalite[\\/]index\.js$/ }, async (args) => {
      let contents = await readFile(args.path, 'utf8');
      for (const loader of DYNALITE_LOADERS) {
        if ((contents.match(loader) ?? []).length !== 1) throw new Error(`${args.path}: dynalite no longer loads its actions with ${loader.source}; review scripts/build-cli.mjs`);
        contents = contents.replace(loader, (call) => `${call.slice(0, -1)} + '.js')`);
      }
      return { contents, loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/** Native addons cannot load from the ESM bundle (no __dirname): the build fails if one comes in again. */
const NATIVE = /[\\/]node_modules[\\/](classic-level|node-gyp-build)[\\/]/;

/**
 * Builds dist/kafka-responder.mjs and dist/chunks/ (+ .map). Files are replaced
 * atomically and the entry last: chunk names carry a content hash, so a CLI
 * started meanwhile never reads half a bundle nor a new entry with old chunks.
 */
export async function buildCli({ quiet = false } = {}) {
  const t0 = performance.now();
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: { 'kafka-responder': 'lib/cli/main.ts' },
    outdir: dirname(CLI_BUNDLE),
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    platform: 'node',
    format: 'esm',
    // Node 22 from npm (npm run / npx); CI's first `node bin/kafka-responder.js sandbox install` runs on the machine's Node 20.
    target: 'node20',
    minify: true,
    keepNames: true,
    // Not loaded unless KR_DEBUG is set (bin/kafka-responder.js turns source maps on then).
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    banner: { js: "import { createRequire as __krCreateRequire } from 'node:module'; const require = __krCreateRequire(import.meta.url);" },
    plugins: [...handlerPlugins, dynaliteInMemory],
    logLevel: 'warning',
    metafile: true,
    write: false,
  });
  const native = Object.keys(result.metafile.inputs).filter((f) => NATIVE.test(f));
  if (native.length) throw new Error(`the CLI bundle would load a native addon, which an ESM bundle cannot: ${native.join(', ')}`);
  await mkdir(CHUNKS, { recursive: true });
  const isEntry = (path) => path === CLI_BUNDLE || path === `${CLI_BUNDLE}.map`;
  for (const file of [...result.outputFiles.filter((f) => !isEntry(f.path)), ...result.outputFiles.filter((f) => isEntry(f.path))]) {
    const tmp = `${file.path}.${process.pid}.tmp`;
    await writeFile(tmp, file.contents);
    await rename(tmp, file.path);
  }
  const written = new Set(result.outputFiles.map((f) => f.path));
  // Builds may run side by side (the matrix lines each build in their global setup): another
  // build's file may be renamed or removed between readdir and stat, and its .tmp files are its own.
  for (const name of await readdir(CHUNKS)) {
    const path = join(CHUNKS, name);
    if (written.has(path) || name.endsWith('.tmp')) continue;
    const mtimeMs = await stat(path).then((s) => s.mtimeMs, () => null);
    if (mtimeMs !== null && Date.now() - mtimeMs > STALE_CHUNK_MS) await rm(path, { force: true });
  }
  const code = result.outputFiles.filter((f) => f.path.endsWith('.mjs'));
  const bytes = code.reduce((n, f) => n + f.contents.length, 0);
  if (!quiet) {
    console.log(`${relative(process.cwd(), CLI_BUNDLE) || CLI_BUNDLE} + ${code.length - 1} chunks: ${(bytes / 1e6).toFixed(1)} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  return { bytes, metafile: result.metafile };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { metafile } = await buildCli();
  if (process.argv.includes('--analyze')) console.log(await esbuild.analyzeMetafile(metafile));
}
