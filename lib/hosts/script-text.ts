// The host scripts' text, each from its one source: the .sh file beside this
// module. Run from source (tsx, vitest, the bench) it is read from disk; the
// bundles (the CLI, the Lambdas, the SSM documents rendered at package time)
// never run this body: esbuild loads every lib/hosts/*.sh as text in its
// place (handlers/build/esbuild-plugins.cjs, `hostScriptsAsText`).

import { readFileSync } from 'node:fs';

export const HOST_SCRIPT_FILES = ['probe.sh', 'probe-dirs.sh', 'probe-logs.sh', 'probe-report.sh', 'service-control.sh', 'replica-data.sh'] as const;
export type HostScriptFile = (typeof HOST_SCRIPT_FILES)[number];

const cache = new Map<HostScriptFile, string>();

export function scriptText(file: HostScriptFile): string {
  let text = cache.get(file);
  if (text === undefined) cache.set(file, (text = readFileSync(new URL(`./${file}`, import.meta.url), 'utf8')));
  return text;
}
