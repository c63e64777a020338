// The compiled CLI as an operator runs it, next to the tool they would reach
// for instead: `kafka-responder diagnose --json` (full diagnosis, host probes
// included) through the installed bin, against one `kafka-topics.sh --describe`,
// on the same running sandbox. Target: ratio of medians <= 0.3.
//
//   npx tsx bench/cli-vs-kafka-topics.ts [--runs 7]
//
// The package is built from this checkout (scripts/build-cli.mjs) and
// installed like a user installs it, `npm install --global` into a temporary
// prefix; its bin is then run by path, a fresh process each time. Its
// `#!/usr/bin/env node` finds the first node on PATH: this bench's own Node
// (22 from the `node` devDependency under `npm run` / `npx`) is put first.
// A breakdown follows: Node start, bundle load, snapshot, host probes.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCli } from '../scripts/build-cli.mjs';
import { Sandbox } from '../sandbox/cluster.ts';

const argValue = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Math.max(3, Number(argValue('--runs') ?? 7));
const TARGET = 0.3;
const repo = fileURLToPath(new URL('..', import.meta.url));

type Run = { ms: number; stdout: string; code: number };

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    execFile(file, args, { env, maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }, (err, stdout, stderr) => {
      const ms = performance.now() - t0;
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      // diagnose exits 3 when it has findings: a successful run all the same.
      if (err && !(file.endsWith('kafka-responder') && code === 3)) reject(new Error(`${file} ${args.join(' ')}: ${(stderr || err.message).trim()}`));
      else resolve({ ms, stdout, code });
    });
  });
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => {
  const s = sorted(xs);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const stats = (xs: number[]) => `median ${median(xs).toFixed(0).padStart(5)} ms   min ${Math.min(...xs).toFixed(0).padStart(5)}   max ${Math.max(...xs).toFixed(0).padStart(5)}`;

const sandbox = new Sandbox(undefined, () => {});
await sandbox.up(); // a no-op on a running sandbox

await buildCli({ quiet: true });
const prefix = mkdtempSync(join(tmpdir(), 'kr-bench-prefix-'));
try {
  // Scripts off: dist/ was just built, and the install is a link to this checkout.
  const install = spawnSync('npm', ['install', '--global', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', repo], { encoding: 'utf8' });
  if (install.status !== 0) throw new Error(`npm install --global --prefix ${prefix} failed: ${install.stderr}`);
  const bin = join(prefix, 'bin', 'kafka-responder');
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`, NO_COLOR: '1' };
  const nodeVersion = spawnSync('node', ['--version'], { env, encoding: 'utf8' }).stdout.trim();
  const topicsArgs = ['--bootstrap-server', sandbox.bootstrapServers, '--describe'];
  const kafkaTopics = join(sandbox.binDir, 'kafka-topics.sh');

  const ours: number[] = [];
  const oursInside: number[] = [];
  const theirs: number[] = [];
  let report: { findings: unknown[]; partial: boolean } | undefined;
  let partitions = 0;
  // One untimed round first (page cache, the bundle's V8 code cache), then alternate so load hits both alike.
  for (let round = -1; round < RUNS; round++) {
    const a = await run(bin, ['diagnose', '--json'], env);
    const b = await run(kafkaTopics, topicsArgs, env);
    if (round < 0) continue;
    const parsed = JSON.parse(a.stdout) as { findings: unknown[]; partial: boolean; durationMs: number };
    report = parsed;
    ours.push(a.ms);
    oursInside.push(parsed.durationMs);
    theirs.push(b.ms);
    partitions = b.stdout.split('\n').filter((l) => /\bPartition: \d+/.test(l)).length;
  }

  // Where the CLI's time goes, through the same installed bin.
  const nodeStart: number[] = [];
  const help: number[] = [];
  const metadataOnly: number[] = [];
  const metadataOnlyInside: number[] = [];
  for (let round = -1; round < RUNS; round++) {
    const n = await run(process.execPath, ['-e', '0'], env);
    const h = await run(bin, ['help'], env);
    // With --bootstrap the CLI has no host access: the snapshot and detectors only.
    const m = await run(bin, ['diagnose', '--json', '--bootstrap', sandbox.bootstrapServers], env);
    if (round < 0) continue;
    nodeStart.push(n.ms);
    help.push(h.ms);
    metadataOnly.push(m.ms);
    metadataOnlyInside.push((JSON.parse(m.stdout) as { durationMs: number }).durationMs);
  }

  const ratio = median(ours) / median(theirs);
  console.log(`sandbox ${sandbox.bootstrapServers}: ${partitions} partitions; kafka-responder bin ${bin} on Node ${nodeVersion}; ${RUNS} runs each`);
  console.log(`report: ${report?.findings.length ?? 0} findings${report?.partial ? ' (partial)' : ''}`);
  console.log(`kafka-responder diagnose --json        ${stats(ours)}`);
  console.log(`kafka-topics.sh --describe             ${stats(theirs)}`);
  console.log(`ratio of medians: ${ratio.toFixed(2)} (target <= ${TARGET}: ${ratio <= TARGET ? 'met' : 'missed'})`);
  console.log('where diagnose --json spends its time (medians):');
  console.log(`  Node start (node -e 0)                   ${median(nodeStart).toFixed(0).padStart(5)} ms`);
  console.log(`  + bundle load (help - node start)        ${(median(help) - median(nodeStart)).toFixed(0).padStart(5)} ms`);
  console.log(`  snapshot + detectors (--bootstrap, no host probes): ${median(metadataOnlyInside).toFixed(0)} ms inside, ${median(metadataOnly).toFixed(0)} ms end to end`);
  console.log(`  snapshot + host probes + detectors:      ${median(oursInside).toFixed(0).padStart(5)} ms inside (report durationMs)`);
  console.log(`  => host probes add                       ${(median(oursInside) - median(metadataOnlyInside)).toFixed(0).padStart(5)} ms`);
  console.log(`  => outside the diagnosis (start, load, command modules, exit): ${(median(ours) - median(oursInside)).toFixed(0)} ms`);
} finally {
  rmSync(prefix, { recursive: true, force: true }); // symlinks only: the checkout itself is not touched
}
