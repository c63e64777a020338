// Regenerates probe-script.generated.ts from probe.sh:
//   npx tsx lib/hosts/gen-probe-script.ts
// The generated module lets a bundle (esbuild for Lambda) carry the probe
// without copying files; test/hosts/probe-runner.test.ts fails when it is stale.

import { readFileSync, writeFileSync } from 'node:fs';

const script = readFileSync(new URL('./probe.sh', import.meta.url), 'utf8');
const out =
  '// GENERATED from probe.sh by gen-probe-script.ts: do not edit; run `npx tsx lib/hosts/gen-probe-script.ts`.\n' +
  `export const PROBE_SCRIPT = ${JSON.stringify(script)};\n`;
writeFileSync(new URL('./probe-script.generated.ts', import.meta.url), out);
console.log(`probe-script.generated.ts: ${script.length} characters`);
