// Builds the CLI into one CommonJS bundle, dist/kafka-responder.cjs, that
// bin/kafka-responder.js runs with plain Node (no TypeScript loader at run time);
// beside it the same for single commands (COMMAND_BUNDLES), the AWS SDK they
// load only when a config needs it (dist/kafka-responder-aws.cjs) and the early
// host probes of a sandbox diagnosis (dist/early-probes.cjs).
//
//   npm run build          (the package's `prepare` script: `npm ci` runs it;
//                           test/global-setup.ts runs it before integration tests)
//
// Same esbuild settings as the Lambda bundles (serverless.yml `custom.esbuild`)
// but the format, and the same not-bundled stubs for Bolt's unused receivers.
// What the CLI reads at run time:
//   - the host scripts: lib/hosts/*.sh, inlined as text (handlers/build/esbuild-plugins.cjs);
//   - runbooks/: bin/kafka-responder.js points KR_RUNBOOKS_DIR at the package's copy;
//   - the sandbox: writes its own files, and finds Kafka in ~/.cache/kafka-responder.
// `serve`'s DynamoDB-compatible store, dynalite, is bundled in its in-memory mode
// only (below): the bundle loads no native module and needs nothing installed.
// One script, not ES modules: the bin compiles it with V8's code cache of its
// own, written after a command's first run, so that it holds every function
// that run compiled (Node's compile cache holds only what a module's first
// compile made, and V8 compiled the rest again on every start: about a fifth
// of a diagnosis's CPU), and no module loader resolves and links dozens of
// chunks. Commands still run only when called (esbuild defers each module a
// dynamic import() loads); a run without a cache for its command parses the
// whole bundle once more (~0.1 s).
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import handlerPlugins from '../handlers/build/esbuild-plugins.cjs';

const root = fileURLToPath(new URL('..', import.meta.url));
export const CLI_BUNDLE = join(root, 'dist', 'kafka-responder.cjs');
/** What builds before this one wrote: an ES module entry and its chunks. */
const FORMER_LAYOUT = ['kafka-responder.mjs', 'kafka-responder.mjs.map', 'chunks'].map((f) => join(root, 'dist', f));

// dynalite, as `serve`'s in-process store, bundled as it runs there (in memory, no native module):
//   - it keeps tables in memory-level unless given a `path`, yet requires `level` (→ classic-level,
//     a native addon found through node-gyp-build(__dirname)) eagerly, which the package (the
//     bundle, no node_modules) does not ship. `serve` never gives a path, so `level` is replaced
//     by a class that says so if anything ever tries;
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

// kafkajs's SCRAM authenticator requires node:crypto as kafkajs loads, SASL or
// not; node:crypto took about 2 ms of every CLI start. The CLI's bundles give
// it node:crypto on first use instead. The build fails if the file no longer
// starts that way (then review this plugin).
const KAFKAJS_SCRAM = /[\\/]node_modules[\\/]kafkajs[\\/]src[\\/]broker[\\/]saslAuthenticator[\\/]scram\.js$/;
const KAFKAJS_EAGER_CRYPTO = "const crypto = require('crypto')\n";
const kafkajsLazyCrypto = {
  name: 'kafka-responder-kafkajs-lazy-crypto',
  setup(build) {
    build.onLoad({ filter: KAFKAJS_SCRAM }, async (args) => {
      const contents = await readFile(args.path, 'utf8');
      if (!contents.startsWith(KAFKAJS_EAGER_CRYPTO)) throw new Error(`${args.path} no longer starts with ${KAFKAJS_EAGER_CRYPTO.trim()}; review scripts/build-cli.mjs`);
      const lazy = "const crypto = new Proxy({}, { get: (_, name) => require('crypto')[name] })\n";
      return { contents: lazy + contents.slice(KAFKAJS_EAGER_CRYPTO.length), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/** A native addon is not in the package (the bundle only): the build fails if one comes in again. */
const NATIVE = /[\\/]node_modules[\\/](classic-level|node-gyp-build)[\\/]/;

/**
 * The commands that also get a bundle of their own, dist/kafka-responder-<name>.cjs:
 * the one-shot reports an operator runs again and again. It holds that
 * command's modules only (lib/cli/main.ts folds the others away), a third of
 * the whole: less for the bin to read, check and deserialize on every run.
 */
export const COMMAND_BUNDLES = ['diagnose'];

/**
 * The AWS SDK and what signs for it, more than half of a command bundle's
 * bytes (6 ms of every diagnosis to read and load): only a run with a config
 * reaches it (SSM hosts, CloudWatch metrics, MSK IAM auth). A command bundle
 * leaves it to dist/kafka-responder-aws.cjs, which it requires then.
 */
const AWS_PACKAGES = /^(@aws-sdk|@smithy|@aws-crypto|@aws-lambda-powertools|aws-msk-iam-sasl-signer-js)(\/|$)/;
const AWS_BUNDLE = join(root, 'dist', 'kafka-responder-aws.cjs');

/** Each AWS package our code imports becomes a module that requires it from AWS_BUNDLE when first used; `seen` collects them. */
function deferAws(seen) {
  return {
    name: 'kafka-responder-defer-aws',
    setup(build) {
      build.onResolve({ filter: AWS_PACKAGES }, (args) => {
        if (/[\\/]node_modules[\\/]/.test(args.importer)) return undefined;
        seen.add(args.path);
        return { path: args.path, namespace: 'aws-deferred' };
      });
      build.onLoad({ filter: /.*/, namespace: 'aws-deferred' }, (args) => ({
        // A path computed at run time: esbuild leaves the require alone.
        contents: `module.exports = require(require('node:path').join(__dirname, ${JSON.stringify(relative(dirname(CLI_BUNDLE), AWS_BUNDLE))}))(${JSON.stringify(args.path)});\n`,
        loader: 'js',
      }));
    },
  };
}

/** AWS_BUNDLE's entry: a function from a package name to that package, each loaded on its first call. */
const awsEntry = (packages) =>
  `const load = {\n${packages.map((p) => `  ${JSON.stringify(p)}: () => require(${JSON.stringify(p)}),\n`).join('')}};\nmodule.exports = (name) => load[name]();\n`;

/**
 * Builds dist/kafka-responder.cjs (+ .map), the command bundles, the AWS
 * bundle they defer to and dist/early-probes.cjs, each file written whole and
 * renamed into place (the AWS bundle before the command bundles), the
 * main bundle last: a CLI started meanwhile reads the old bundle or the new
 * one, never half of one.
 */
export async function buildCli({ quiet = false } = {}) {
  const t0 = performance.now();
  const options = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    // Node 22 from npm (npm run / npx); CI's first `node bin/kafka-responder.js sandbox install` runs on the machine's Node 20.
    target: 'node20',
    minify: true,
    keepNames: true,
    // Not loaded unless KR_DEBUG is set (bin/kafka-responder.js then requires the bundle, maps on).
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    // The modules that find files beside themselves (import.meta.url) find them beside the bundle.
    define: { 'import.meta.url': '__krImportMetaUrl' },
    banner: { js: "var __krImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    plugins: [...handlerPlugins, dynaliteInMemory, kafkajsLazyCrypto],
    logLevel: 'warning',
    metafile: true,
    write: false,
  };
  const deferred = new Set();
  const [result, ...commandResults] = await Promise.all([
    esbuild.build({
      ...options,
      // The bin loads early-probes first, on its own, for a diagnosis of the sandbox (lib/cli/early-probes.ts).
      entryPoints: { 'kafka-responder': 'lib/cli/main.ts', 'early-probes': 'lib/cli/early-probes.ts' },
      outdir: dirname(CLI_BUNDLE),
      outExtension: { '.js': '.cjs' },
    }),
    ...COMMAND_BUNDLES.map((name) =>
      esbuild.build({
        ...options,
        entryPoints: ['lib/cli/main.ts'],
        // Beside the main bundle, so that files found from import.meta.url are found alike.
        outfile: join(dirname(CLI_BUNDLE), `kafka-responder-${name}.cjs`),
        define: { ...options.define, KR_BUNDLE_COMMAND: JSON.stringify(name) },
        plugins: [...options.plugins, deferAws(deferred)],
      }),
    ),
  ]);
  const awsResult = await esbuild.build({
    ...options,
    stdin: { contents: awsEntry([...deferred].sort()), resolveDir: root, sourcefile: 'kafka-responder-aws-entry.js', loader: 'js' },
    outfile: AWS_BUNDLE,
  });
  const outputs = [awsResult, ...commandResults].flatMap((r) => r.outputFiles).concat(result.outputFiles);
  const inputs = [result, awsResult, ...commandResults].flatMap((r) => Object.keys(r.metafile.inputs));
  const native = [...new Set(inputs.filter((f) => NATIVE.test(f)))];
  if (native.length) throw new Error(`the CLI bundle would load a native addon, which the package does not ship: ${native.join(', ')}`);
  // esbuild escapes every non-ASCII character by default (charset): the bin reads the bundles as Latin-1.
  for (const file of outputs.filter((f) => f.path.endsWith('.cjs'))) {
    const nonAscii = file.contents.findIndex((b) => b > 0x7f);
    if (nonAscii >= 0) throw new Error(`${relative(root, file.path)} has a non-ASCII byte at ${nonAscii}: bin/load-bundle.js reads it as Latin-1`);
  }
  await mkdir(dirname(CLI_BUNDLE), { recursive: true });
  const ordered = [...outputs.filter((f) => f.path !== CLI_BUNDLE), ...outputs.filter((f) => f.path === CLI_BUNDLE)];
  for (const file of ordered) {
    const tmp = `${file.path}.${process.pid}.tmp`;
    await writeFile(tmp, file.contents);
    await rename(tmp, file.path);
  }
  for (const path of FORMER_LAYOUT) await rm(path, { recursive: true, force: true });
  const bytes = result.outputFiles.find((f) => f.path === CLI_BUNDLE).contents.length;
  if (!quiet) console.log(`${relative(process.cwd(), CLI_BUNDLE) || CLI_BUNDLE}: ${(bytes / 1e6).toFixed(1)} MB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return { bytes, metafile: result.metafile };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { metafile } = await buildCli();
  if (process.argv.includes('--analyze')) console.log(await esbuild.analyzeMetafile(metafile));
}
