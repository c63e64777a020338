// Regenerates what bundles and the template carry of the host scripts:
//   npx tsx lib/hosts/gen-probe-script.ts
// - probe-script.generated.ts, service-control-script.generated.ts: the
//   scripts for a bundle (esbuild for Lambda), which has no .sh file next to it;
// - ssm-documents.generated.json: the SSM Command documents and the worker's
//   permission to send them (scripts.ts cloudFormationResources), added to the
//   packaged template by handlers/build/ssm-documents-plugin.cjs.
// Tests fail when one is stale (test/hosts/scripts.test.ts).

import { readFileSync, writeFileSync } from 'node:fs';

const SCRIPTS = [
  { source: 'probe.sh', module: 'probe-script.generated.ts', constant: 'PROBE_SCRIPT' },
  { source: 'service-control.sh', module: 'service-control-script.generated.ts', constant: 'SERVICE_CONTROL_SCRIPT' },
];

for (const s of SCRIPTS) {
  const script = readFileSync(new URL(`./${s.source}`, import.meta.url), 'utf8');
  const out =
    `// GENERATED from ${s.source} by gen-probe-script.ts: do not edit; run \`npx tsx lib/hosts/gen-probe-script.ts\`.\n` +
    `export const ${s.constant} = ${JSON.stringify(script)};\n`;
  writeFileSync(new URL(`./${s.module}`, import.meta.url), out);
  console.log(`${s.module}: ${script.length} characters`);
}

// Imported after the copies are written, so the documents carry the new scripts.
const { cloudFormationResources } = await import('./scripts.ts');
const documents = `${JSON.stringify(cloudFormationResources(), null, 2)}\n`;
writeFileSync(new URL('./ssm-documents.generated.json', import.meta.url), documents);
console.log(`ssm-documents.generated.json: ${documents.length} characters`);
