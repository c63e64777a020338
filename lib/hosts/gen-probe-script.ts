// Regenerates the bundled copies of the fixed host scripts:
//   npx tsx lib/hosts/gen-probe-script.ts
// probe.sh → probe-script.generated.ts, service-control.sh → service-control-script.generated.ts.
// The generated modules let a bundle (esbuild for Lambda) carry the scripts
// without copying files; tests fail when one is stale.

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
