// osls plugin: adds the host scripts' SSM Command documents and the worker's
// permission to send them (lib/hosts/ssm-documents.generated.json, generated
// from lib/hosts/scripts.ts by `npx tsx lib/hosts/gen-probe-script.ts`) to the
// compiled template. Added after variable resolution on purpose: the scripts
// are full of shell `${...}` that osls would otherwise read as its variables.
/* global module, require, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports -- osls loads local plugins with require() */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

class SsmDocumentsPlugin {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = { 'before:package:finalize': () => this.addDocuments() };
  }

  addDocuments() {
    const file = join(__dirname, '..', '..', 'lib', 'hosts', 'ssm-documents.generated.json');
    const resources = JSON.parse(readFileSync(file, 'utf8'));
    const template = this.serverless.service.provider.compiledCloudFormationTemplate;
    for (const [name, resource] of Object.entries(resources)) {
      if (template.Resources[name]) throw new Error(`ssm-documents-plugin: resource ${name} already exists`);
      template.Resources[name] = resource;
    }
  }
}

module.exports = SsmDocumentsPlugin;
