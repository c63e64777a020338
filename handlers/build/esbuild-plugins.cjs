// esbuild plugins for the Lambda bundles (serverless-esbuild `plugins`), the
// CLI bundle (scripts/build-cli.mjs), the SSM documents rendered at package
// time (ssm-documents-plugin.cjs) and bench/slack-ack.ts.
/* global module, require */
/* eslint-disable @typescript-eslint/no-require-imports -- loaded with require() by serverless-esbuild */
const { readdirSync, readFileSync } = require('node:fs');
const { dirname } = require('node:path');

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

// The host scripts go into a bundle as text, each from its one source: every
// lib/hosts/*.sh through esbuild's text loader, imported by a stand-in for
// lib/hosts/script-text.ts (which reads them from disk when run from source).
const hostScriptsAsText = {
  name: 'kafka-responder-host-scripts',
  setup(build) {
    build.onLoad({ filter: /[\\/]lib[\\/]hosts[\\/]script-text\.ts$/ }, (args) => {
      const dir = dirname(args.path);
      const files = readdirSync(dir).filter((f) => f.endsWith('.sh')).sort();
      const contents = [
        ...files.map((f, i) => `import s${i} from ${JSON.stringify(`./${f}`)};`),
        `const TEXT = { ${files.map((f, i) => `${JSON.stringify(f)}: s${i}`).join(', ')} };`,
        `export const HOST_SCRIPT_FILES = ${JSON.stringify(files)};`,
        'export function scriptText(file) { if (!Object.hasOwn(TEXT, file)) throw new Error(`no host script ${file}`); return TEXT[file]; }',
      ].join('\n');
      return { contents, loader: 'js', resolveDir: dir };
    });
    build.onLoad({ filter: /[\\/]lib[\\/]hosts[\\/][^\\/]+\.sh$/ }, (args) => ({ contents: readFileSync(args.path, 'utf8'), loader: 'text' }));
  },
};

module.exports = [notBundled, hostScriptsAsText];
