// esbuild plugins for the Lambda bundles (serverless-esbuild `plugins`, and
// bench/slack-ack.ts).
/* global require, module */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { readFile } = require('node:fs/promises');

// Bolt's index loads every receiver at import time; we only use
// AwsLambdaReceiver, so the Express and Socket Mode stacks (≈1.3 MB minified:
// express, body-parser, iconv-lite, undici) are replaced by stubs that throw
// if anything ever constructs them.
const STUBBED = ['express', 'raw-body', '@slack/socket-mode'];

const notBundled = {
  name: 'kafka-responder-not-bundled',
  setup(build) {
    const filter = new RegExp(`^(${STUBBED.map((s) => s.replace(/[/@-]/g, '\\$&')).join('|')})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'not-bundled' }));
    build.onLoad({ filter: /.*/, namespace: 'not-bundled' }, (args) => ({
      contents: `module.exports = function notBundled() { throw new Error(${JSON.stringify(`${args.path} is not bundled in this Lambda`)}); };`,
      loader: 'js',
    }));
  },
};

// Our own ESM modules that load CommonJS internals with
// `const require = createRequire(import.meta.url)` (lib/kafka/wire.ts reaches
// into kafkajs/src) would leave those requires for run time, where a bundled
// Lambda has no node_modules. Dropping that one line makes them plain
// require() calls, which esbuild follows and bundles.
const CREATE_REQUIRE = /^const require = createRequire\(import\.meta\.url\);$/m;

const bundleCreateRequire = {
  name: 'kafka-responder-bundle-create-require',
  setup(build) {
    build.onLoad({ filter: /[\\/]lib[\\/].*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!CREATE_REQUIRE.test(source)) return undefined;
      return { contents: source.replace(CREATE_REQUIRE, '// (createRequire removed for bundling: esbuild bundles these require() calls)'), loader: 'ts' };
    });
  },
};

module.exports = [notBundled, bundleCreateRequire];
