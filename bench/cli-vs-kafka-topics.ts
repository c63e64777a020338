// The compiled CLI as an operator runs it, next to the tool they would reach
// for instead: `kafka-responder diagnose --json` (full diagnosis, host probes
// included) through the installed bin, against one `kafka-topics.sh --describe`,
// on the same running sandbox. Target: ratio of medians <= 0.2, on the sandbox
// as it is and again once every broker's logs have grown to the probe's scan
// bound (40 MB: rotated server.log.* files are added for the run, then
// removed), with one host probe alone timed beside (and the last JSON probe,
// test/hosts/legacy/probe-v1.sh, for comparison).
//
//   npx tsx bench/cli-vs-kafka-topics.ts [--runs 7] [--fresh-only]
//
// The package is built from this checkout (scripts/build-cli.mjs) and
// installed like a user installs it, `npm install --global` into a temporary
// prefix; its bin is then run by path, a fresh process each time. Its
// `#!/usr/bin/env node` finds the first node on PATH: this bench's own Node
// (22 from the `node` devDependency under `npm run` / `npx`) is put first.
// A breakdown follows: Node start, bundle load, snapshot, host probes.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCli } from '../scripts/build-cli.mjs';
import { HOST_SCRIPTS } from '../lib/hosts/scripts.ts';
import { Sandbox } from '../sandbox/cluster.ts';

const argValue = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Math.max(3, Number(argValue('--runs') ?? 7));
const TARGET = 0.2;
/** probe.sh's LOG_BYTES: the newest bytes of server.log and its rotations it reads. */
const SCAN_BOUND = 40 * 1024 * 1024;
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

  // The probe as the documents carry it: its parts joined (lib/hosts/scripts.ts PROBE_PARTS).
  const probeScript = join(prefix, 'probe.sh');
  writeFileSync(probeScript, HOST_SCRIPTS.probe.body());
  const legacyProbe = join(repo, 'test', 'hosts', 'legacy', 'probe-v1.sh');
  const brokers = (await sandbox.status()).filter((n) => n.role === 'broker' && n.running);
  /** One host probe alone, as the local executor runs it (bash in the host dir, its config named). */
  const probeOnce = (script: string, hostDir: string) => run('bash', [script, '--config', join(hostDir, 'config', 'server.properties')], { ...env, PATH: env.PATH }).then((r) => r.ms);

  async function measure(label: string): Promise<number> {
    const ours: number[] = [];
    const oursInside: number[] = [];
    const theirs: number[] = [];
    const probe: number[] = [];
    const legacy: number[] = [];
    let report: { findings: unknown[]; partial: boolean } | undefined;
    let partitions = 0;
    // One untimed round first (page cache, the bundle's V8 code cache), then alternate so load hits both alike.
    for (let round = -1; round < RUNS; round++) {
      const a = await run(bin, ['diagnose', '--json'], env);
      const b = await run(kafkaTopics, topicsArgs, env);
      const p = await probeOnce(probeScript, brokers[0]!.hostDir);
      const l = existsSync(legacyProbe) ? await probeOnce(legacyProbe, brokers[0]!.hostDir) : NaN;
      if (round < 0) continue;
      const parsed = JSON.parse(a.stdout) as { findings: unknown[]; partial: boolean; durationMs: number };
      report = parsed;
      ours.push(a.ms);
      oursInside.push(parsed.durationMs);
      theirs.push(b.ms);
      probe.push(p);
      legacy.push(l);
      partitions = b.stdout.split('\n').filter((line) => /\bPartition: \d+/.test(line)).length;
    }
    const logBytes = brokers.map((n) => logsSize(n.hostDir));
    const ratio = median(ours) / median(theirs);
    console.log(`\n== ${label}: ${partitions} partitions; broker logs ${logBytes.map((b) => `${(b / 1e6).toFixed(1)} MB`).join(' / ')} (server.log and rotations)`);
    console.log(`report: ${report?.findings.length ?? 0} findings${report?.partial ? ' (partial)' : ''}`);
    console.log(`kafka-responder diagnose --json        ${stats(ours)}   (${median(oursInside).toFixed(0)} ms inside)`);
    console.log(`kafka-topics.sh --describe             ${stats(theirs)}`);
    console.log(`one host probe (probe.sh, records)     ${stats(probe)}`);
    if (legacy.every(Number.isFinite)) console.log(`one host probe (legacy JSON probe)     ${stats(legacy)}`);
    console.log(`ratio of medians: ${ratio.toFixed(2)} (target <= ${TARGET}: ${ratio <= TARGET ? 'met' : 'missed'})`);
    return ratio;
  }

  /** Bytes of server.log and its rotations in a host dir. */
  function logsSize(hostDir: string): number {
    const dir = join(hostDir, 'logs');
    const out = spawnSync('bash', ['-c', 'shopt -s nullglob; stat -c %s -- server.log server.log.* 2>/dev/null', '_'], { cwd: dir, encoding: 'utf8' }).stdout;
    return out.split('\n').filter(Boolean).reduce((n, x) => n + Number(x), 0);
  }

  /** Rotated server.log.* files, older than server.log, until every broker holds SCAN_BOUND bytes of logs. */
  function growLogs(): string[] {
    const added: string[] = [];
    const line = (i: number) =>
      i % 500 === 0
        ? `[2026-11-30 0${i % 10}:00:00,000] INFO [GroupCoordinator id=1] Finished loading of metadata from __consumer_offsets-${i % 50} with epoch ${i} in 12ms (org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime)`
        : `[2026-11-30 0${i % 10}:00:00,000] INFO [ReplicaFetcher replicaId=2, leaderId=1, fetcherId=0] Truncating partition bench-${i % 64} with TruncationState(offset=${i}, completed=true) due to leader epoch and offset EpochEndOffset(errorCode=0, partition=bench-${i % 64}, leaderEpoch=${i % 90}, endOffset=${i}) (kafka.server.ReplicaFetcherThread)`;
    const lines: string[] = [];
    let bytes = 0;
    for (let i = 0; bytes < 10 * 1024 * 1024; i++) {
      const l = line(i);
      lines.push(l);
      bytes += l.length + 1;
    }
    const chunk = lines.join('\n') + '\n';
    for (const n of brokers) {
      const dir = join(n.hostDir, 'logs');
      const now = statSync(join(dir, 'server.log')).mtimeMs / 1000;
      for (let k = 1; logsSize(n.hostDir) < SCAN_BOUND; k++) {
        const file = join(dir, `server.log.kr-bench-${k}`);
        writeFileSync(file, chunk.slice(0, Math.min(chunk.length, SCAN_BOUND - logsSize(n.hostDir))));
        utimesSync(file, now - 3600 * k, now - 3600 * k);
        added.push(file);
      }
    }
    return added;
  }

  const fresh = await measure('the sandbox as it is');
  if (!process.argv.includes('--fresh-only')) {
    const added = growLogs();
    try {
      const grown = await measure(`broker logs grown to the probe's ${SCAN_BOUND / 1024 / 1024} MB scan bound`);
      console.log(`\nratios: ${fresh.toFixed(2)} as it is, ${grown.toFixed(2)} at the scan bound (target <= ${TARGET})`);
    } finally {
      for (const f of added) rmSync(f, { force: true });
    }
  }

  // Where the CLI's time goes, through the same installed bin.
  const nodeStart: number[] = [];
  const help: number[] = [];
  const metadataOnly: number[] = [];
  const metadataOnlyInside: number[] = [];
  const inside: number[] = [];
  for (let round = -1; round < RUNS; round++) {
    const n = await run(process.execPath, ['-e', '0'], env);
    const h = await run(bin, ['help'], env);
    // With --bootstrap the CLI has no host access: the snapshot and detectors only.
    const m = await run(bin, ['diagnose', '--json', '--bootstrap', sandbox.bootstrapServers], env);
    const a = await run(bin, ['diagnose', '--json'], env);
    if (round < 0) continue;
    nodeStart.push(n.ms);
    help.push(h.ms);
    metadataOnly.push(m.ms);
    metadataOnlyInside.push((JSON.parse(m.stdout) as { durationMs: number }).durationMs);
    inside.push((JSON.parse(a.stdout) as { durationMs: number }).durationMs);
  }
  console.log(`\nkafka-responder bin ${bin} on Node ${nodeVersion}; ${RUNS} runs each; where diagnose --json spends its time (medians, sandbox as it is):`);
  console.log(`  Node start (node -e 0)                   ${median(nodeStart).toFixed(0).padStart(5)} ms`);
  console.log(`  + bundle load (help - node start)        ${(median(help) - median(nodeStart)).toFixed(0).padStart(5)} ms`);
  console.log(`  snapshot + detectors (--bootstrap, no host probes): ${median(metadataOnlyInside).toFixed(0)} ms inside, ${median(metadataOnly).toFixed(0)} ms end to end`);
  console.log(`  snapshot + host probes + detectors:      ${median(inside).toFixed(0).padStart(5)} ms inside (report durationMs)`);
  console.log(`  => host probes add                       ${(median(inside) - median(metadataOnlyInside)).toFixed(0).padStart(5)} ms`);
} finally {
  rmSync(prefix, { recursive: true, force: true }); // symlinks only: the checkout itself is not touched
}
