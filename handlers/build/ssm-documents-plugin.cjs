// osls plugin: adds the host scripts' SSM Command documents and the worker's
// permission to send them to the compiled template, rendered at package time
// from the registry itself (lib/hosts/scripts.ts cloudFormationResources(),
// bundled here with esbuild and the same plugins as the Lambdas, so each
// lib/hosts/*.sh is read as text from its one source; no generated copy).
// Added after variable resolution on purpose: the scripts are full of shell
// `${...}` that osls would otherwise read as its variables.
/* global module, require, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports -- osls loads local plugins with require() */
const { mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const root = join(__dirname, '..', '..');

/** The CloudFormation resources of the host scripts, as lib/hosts/scripts.ts renders them. */
async function renderDocuments() {
  const esbuild = require('esbuild');
  const plugins = require('./esbuild-plugins.cjs');
  const result = await esbuild.build({
    absWorkingDir: root,
    stdin: { contents: "export { cloudFormationResources } from './lib/hosts/scripts.ts';", resolveDir: root, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    plugins,
    logLevel: 'warning',
  });
  const dir = mkdtempSync(join(tmpdir(), 'kr-ssm-documents-'));
  try {
    const file = join(dir, 'scripts.mjs');
    writeFileSync(file, result.outputFiles[0].contents);
    const { cloudFormationResources } = await import(pathToFileURL(file).href);
    return cloudFormationResources();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

class SsmDocumentsPlugin {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:package:finalize': () => this.addDocuments() };
  }

  async addDocuments() {
    const resources = await renderDocuments();
    const template = this.serverless.service.provider.compiledCloudFormationTemplate;
    for (const [name, resource] of Object.entries(resources)) {
      if (template.Resources[name]) throw new Error(`ssm-documents-plugin: resource ${name} already exists`);
      template.Resources[name] = resource;
    }
  }
}

module.exports = SsmDocumentsPlugin;
module.exports.renderDocuments = renderDocuments;
