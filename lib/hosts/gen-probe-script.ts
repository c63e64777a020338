// Regenerates what bundles and the template carry of the host scripts:
//   npx tsx lib/hosts/gen-probe-script.ts
// - probe-script.generated.ts: the probe for a bundle (esbuild for Lambda),
//   which has no probe.sh file next to it;
// - ssm-documents.generated.json: the SSM Command documents and the worker's
//   permission to send them (scripts.ts cloudFormationResources), added to the
//   packaged template by handlers/build/ssm-documents-plugin.cjs.
// test/hosts/scripts.test.ts fails when either is stale.

import { readFileSync, writeFileSync } from 'node:fs';

const script = readFileSync(new URL('./probe.sh', import.meta.url), 'utf8');
const out =
  '// GENERATED from probe.sh by gen-probe-script.ts: do not edit; run `npx tsx lib/hosts/gen-probe-script.ts`.\n' +
  `export const PROBE_SCRIPT = ${JSON.stringify(script)};\n`;
writeFileSync(new URL('./probe-script.generated.ts', import.meta.url), out);
console.log(`probe-script.generated.ts: ${script.length} characters`);

// Imported after the probe copy is written, so the documents carry the new probe.
const { cloudFormationResources } = await import('./scripts.ts');
const documents = `${JSON.stringify(cloudFormationResources(), null, 2)}\n`;
writeFileSync(new URL('./ssm-documents.generated.json', import.meta.url), documents);
console.log(`ssm-documents.generated.json: ${documents.length} characters`);
