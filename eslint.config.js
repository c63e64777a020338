import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Folder boundaries in lib/ (README "Layout"): what each folder may import from
// the others. Infrastructure imports no feature; approvals is shared by the
// features; root/ (composition), local/ and cli/ are the shell. The lists form
// a DAG, so there is no folder cycle. Dynamic import() is checked too.
const INFRA = ['runtime', 'config', 'state', 'queue', 'kafka', 'hosts', 'slack', 'worker'];
const FEATURES = ['diagnose', 'operations', 'pagerduty', 'alerts', 'audit', 'timeline'];
const ALLOWED = {
  runtime: [],
  config: ['runtime'],
  state: ['runtime'],
  queue: ['runtime'],
  kafka: ['config', 'runtime'],
  hosts: ['config', 'runtime'],
  slack: ['config', 'runtime', 'state', 'queue'],
  worker: ['config', 'runtime', 'state', 'queue', 'slack'],
  approvals: ['config', 'runtime'],
  operations: [...INFRA, 'approvals'],
  diagnose: [...INFRA, 'approvals', 'operations'],
  // PagerDuty in (an alert source) and out (change events, notes); lib/alerts' source table imports it.
  pagerduty: [...INFRA, 'approvals', 'diagnose', 'operations'],
  alerts: [...INFRA, 'approvals', 'diagnose', 'operations', 'pagerduty'],
  audit: [...INFRA, 'approvals', 'diagnose'],
  timeline: [...INFRA, 'approvals', 'diagnose'],
  root: [...INFRA, 'approvals', ...FEATURES],
  local: [...INFRA, 'approvals', ...FEATURES, 'root'],
  cli: [...INFRA, 'approvals', ...FEATURES, 'root', 'local'],
};
const LIB_FOLDERS = [...INFRA, 'approvals', ...FEATURES, 'root', 'local', 'cli'];
// A feature's button that other features' threads carry: the file alone may be
// imported by the folders named, and it imports lib/slack/ only (a leaf, below).
const THREAD_BUTTONS = { 'timeline/button.ts': ['diagnose', 'alerts'] };
const leavesFor = (folder) => Object.entries(THREAD_BUTTONS).flatMap(([file, users]) => (users.includes(folder) ? [file] : []));
// The sandbox (sandbox/) is a development tool: only the CLI's entry and the
// local server may reach it, so no production bundle can carry it.
const SANDBOX_USERS = ['cli', 'local'];
const SANDBOX_REGEX = '^(\\.\\./)+sandbox/';
const SANDBOX_MESSAGE = 'only lib/cli/ and lib/local/ may import sandbox/ (production code never reaches the sandbox).';
// `import { z } from 'zod'` is zod's namespace as one object: esbuild must then
// keep every export of it, 50 locales included (+370 KB in each bundle, parsed at
// every CLI start); `import * as z` lets it keep only what is used.
const ZOD_NAMESPACE = {
  selector: "ImportDeclaration[source.value='zod'][importKind!='type'] > ImportSpecifier[imported.name='z']",
  message: "import * as z from 'zod' (the named `z` makes bundles carry all of zod, every locale included).",
};
const importSelector = (regex) => `ImportExpression[source.value=/${regex.replace(/\//g, '\\/')}/]`;
const boundaries = Object.entries(ALLOWED).map(([folder, allowed]) => {
  const forbidden = LIB_FOLDERS.filter((f) => f !== folder && !allowed.includes(f));
  const leaves = leavesFor(folder).map((f) => `(?!${f.replaceAll('.', '\\.')}$)`).join('');
  const regex = `^(\\.\\./)+${leaves}(${forbidden.join('|')})/`;
  const message = `lib/${folder}/ may import only from ${allowed.length ? allowed.map((a) => `lib/${a}/`).join(', ') : 'itself'} (README "Layout").`;
  const noSandbox = !SANDBOX_USERS.includes(folder);
  const patterns = [{ regex, message }, ...(noSandbox ? [{ regex: SANDBOX_REGEX, message: SANDBOX_MESSAGE }] : [])];
  const selectors = [ZOD_NAMESPACE, { selector: importSelector(regex), message }, ...(noSandbox ? [{ selector: importSelector(SANDBOX_REGEX), message: SANDBOX_MESSAGE }] : [])];
  return {
    files: [`lib/${folder}/**/*.ts`],
    rules: {
      'no-restricted-imports': ['error', { patterns }],
      'no-restricted-syntax': ['error', ...selectors],
    },
  };
});

export default tseslint.config(
  { ignores: ['node_modules/**', '.serverless/**', '.esbuild/**', 'dist/**', '.sandbox/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  ...boundaries,
  {
    // Sizes a reader can hold (issue 33): a file of lib/ under 400 lines, a function under 80.
    files: ['lib/**/*.ts'],
    ignores: ['lib/**/*.test.ts'],
    rules: { 'max-lines': ['error', { max: 400 }], 'max-lines-per-function': ['error', { max: 80 }] },
  },
  {
    files: Object.keys(THREAD_BUTTONS).map((f) => `lib/${f}`),
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!\\.\\./slack/)', message: 'a thread button (THREAD_BUTTONS) imports lib/slack/ only.' }] }],
      'no-restricted-syntax': ['error', ZOD_NAMESPACE],
    },
  },
  { files: ['sandbox/**/*.ts', 'handlers/**/*.ts'], rules: { 'no-restricted-syntax': ['error', ZOD_NAMESPACE] } },
  {
    // Lambda entry points only adapt: every piece of wiring is in the composition root.
    files: ['handlers/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./lib/(?!root/)', message: 'handlers/ may import only lib/root/ (the composition root).' }] }],
    },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', performance: 'readonly' } },
  },
  {
    // CommonJS (bin/package.json): Node starts a script faster than an ES module.
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', __filename: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
