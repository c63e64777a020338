// Writes what follows from ALERT_SOURCES (lib/alerts/sources/index.ts) into
// serverless.yml (the alerts function's routes and secrets, its role's
// ssm:GetParameter, the outputs) and docs/alerts.md (the table of sources),
// between `>>> generated from ALERT_SOURCES` and `<<<` markers.
//   npx tsx scripts/alert-sources.ts          rewrite the regions
//   npx tsx scripts/alert-sources.ts --check  exit 1 when a region differs
// test/alerts/sources-table.test.ts fails when a region is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ALERT_SOURCES } from '../lib/alerts/sources/index.ts';
import { routeAuth, type AlertSourceDef, type HttpAlertSource } from '../lib/alerts/sources/types.ts';

const ROOT = resolve(import.meta.dirname, '..');
export const GENERATED_FILES = ['serverless.yml', 'docs/alerts.md'] as const;

const http = (sources: readonly AlertSourceDef[]) => sources.filter((s): s is HttpAlertSource => s.kind === 'http');
/** Each secret once, in table order (CloudWatch's serve stand-in is Alertmanager's). */
const secretsOf = (sources: readonly AlertSourceDef[]) => [...new Map(http(sources).map((s) => [s.auth.secret.parameter, s])).values()];
const pascal = (name: string) => name.replace(/(^|-)([a-z])/g, (_m, _d, c: string) => c.toUpperCase());
const param = (parameter: string) => `/kafka-responder/\${sls:stage}/${parameter}`;

/** serverless.yml's regions by name: lines without their indentation. */
export function yamlRegions(sources: readonly AlertSourceDef[]): Record<string, string[]> {
  return {
    secrets: secretsOf(sources).map((s) => `#   /kafka-responder/<stage>/${s.auth.secret.parameter} `.padEnd(54) + `SecureString (≥ ${s.auth.minSecretChars} characters): ${s.label}'s ${s.auth.secretNoun}`),
    environment: secretsOf(sources).map((s) => `${s.auth.secret.parameterVar}: ${param(s.auth.secret.parameter)}`),
    events: http(sources).map((s) => `- httpApi: { method: POST, path: ${s.path} }`),
    'iam-parameters': secretsOf(sources).map((s) => `- 'Fn::Join': ['', ['arn:', { Ref: AWS::Partition }, ':ssm:', { Ref: AWS::Region }, ':', { Ref: AWS::AccountId }, ':parameter${param(s.auth.secret.parameter)}']]`),
    outputs: http(sources).flatMap((s) => [`${pascal(s.name)}Url:`, `  Description: Webhook URL for ${s.label} (secret ${s.auth.secret.parameter})`, `  Value: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [HttpApi, ApiEndpoint] }, '${s.path}']] }`]),
  };
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** docs/alerts.md's table of sources. */
export function docRegions(sources: readonly AlertSourceDef[]): Record<string, string[]> {
  const rows = sources.map((s) => {
    const auth = routeAuth(s);
    const deployed = s.kind === 'http' ? `HTTP API \`POST ${s.path}\`` : `SNS topic \`kafka-responder-<stage>-${s.topic}\` (AWS invokes the function)`;
    const how = s.kind === 'http' ? auth.doc : `none deployed (SNS invokes it); in \`serve\`: ${auth.doc}`;
    return `| ${[s.label, `\`${s.name}\``, deployed, `\`POST ${s.path}\``, how, `\`/kafka-responder/<stage>/${auth.secret.parameter}\` (\`${auth.secret.valueVar}\` in serve)`, s.maps].map(cell).join(' | ')} |`;
  });
  return {
    table: ['| Source | Name | Deployed | In `serve` | Authentication | Secret (SecureString) | Maps to |', '|---|---|---|---|---|---|---|', ...rows],
  };
}

const MARK = /^(\s*)(#|<!--) >>> generated from ALERT_SOURCES \(npx tsx scripts\/alert-sources\.ts\): ([a-z-]+)/;

/** The text with each region between its markers replaced; an unknown or unclosed region throws. */
export function applyRegions(text: string, regions: Record<string, string[]>): string {
  const lines = text.split('\n');
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    out.push(line);
    const m = MARK.exec(line);
    if (!m) continue;
    const [, indent, comment, name] = m as unknown as [string, string, string, string];
    const body = regions[name];
    if (!body) throw new Error(`no region "${name}"`);
    const end = lines.findIndex((l, j) => j > i && l.trim() === (comment === '#' ? `# <<< ${name}` : `<!-- <<< ${name} -->`));
    if (end < 0) throw new Error(`region "${name}" is not closed`);
    out.push(...body.map((b) => (comment === '#' ? `${indent}${b}` : b)), lines[end]!);
    seen.add(name);
    i = end;
  }
  const missing = Object.keys(regions).filter((r) => !seen.has(r));
  if (missing.length) throw new Error(`regions without markers: ${missing.join(', ')}`);
  return out.join('\n');
}

/** Each generated file as it should read. */
export function generated(sources: readonly AlertSourceDef[] = ALERT_SOURCES, root = ROOT): Record<(typeof GENERATED_FILES)[number], { now: string; want: string }> {
  const read = (f: string) => readFileSync(join(root, f), 'utf8');
  const yml = read('serverless.yml');
  const doc = read('docs/alerts.md');
  return {
    'serverless.yml': { now: yml, want: applyRegions(yml, yamlRegions(sources)) },
    'docs/alerts.md': { now: doc, want: applyRegions(doc, docRegions(sources)) },
  };
}

function main(): number {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [file, { now, want }] of Object.entries(generated())) {
    if (now === want) continue;
    stale++;
    if (check) console.error(`${file} differs from ALERT_SOURCES: run npx tsx scripts/alert-sources.ts`);
    else {
      writeFileSync(join(ROOT, file), want);
      console.log(`wrote ${file}`);
    }
  }
  return check && stale ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main();
