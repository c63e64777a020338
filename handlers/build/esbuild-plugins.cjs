// esbuild plugins for the Lambda bundles (serverless-esbuild `plugins`, and
// bench/slack-ack.ts).
/* global module */

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

module.exports = [notBundled];
