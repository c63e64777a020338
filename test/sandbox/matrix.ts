// The Kafka-lines matrix: after the whole integration suite on the default line
// (KRaft 4.4.0), the tests that matter most per line run again, once per line,
// each on a sandbox of its own (its own home and ports, purged afterwards):
//   - the diagnosis compared with kafka-topics.sh's filters, scenario by scenario;
//   - the leader override that rescues the incident-1 outage, with the honest loss;
//   - a throttled raise-RF that leaves no throttle (kafka-configs.sh --describe);
//   - a rolling restart through `serve` while acks=all writes run;
//   - on 2.8, transactions "not available on this broker version" (KIP-664 is 3.0+);
//   - the sandbox's own lifecycle commands.
// `npm test` runs it (npm run test:matrix). KR_MATRIX_LINES=zookeeper-2.8,kraft-3.9
// picks lines; each line's wall time is printed and written to
// <tmp>/kafka-responder-matrix.json. The lines run side by side (each on its own
// sandbox and ports; most of their time is spent waiting on brokers), their output
// prefixed with the line's name; KR_MATRIX_CONCURRENCY=1 runs them one by one.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Line {
  name: string;
  kafkaVersion: string;
  mode: 'kraft' | 'zookeeper';
}

export const LINES: Line[] = [
  { name: 'kraft-3.9', kafkaVersion: '3.9.1', mode: 'kraft' },
  { name: 'zookeeper-3.9', kafkaVersion: '3.9.1', mode: 'zookeeper' },
  { name: 'zookeeper-2.8', kafkaVersion: '2.8.2', mode: 'zookeeper' },
];

/** Files, and in each the tests (by name, as regular expressions) that run on every line. */
export const MATRIX_TESTS: { file: string; tests: string[] }[] = [
  { file: 'test/sandbox/lifecycle.int.test.ts', tests: ['sandbox lifecycle'] },
  {
    file: 'test/diagnose/sandbox.int.test.ts',
    tests: ['healthy cluster: sets equal', 'rf1-broker-down: offline', 'isr-one-leader-lost: the leaderless', 'missing-segments: empty', 'unclean-restart: broker 2', 'corrupt-index: broker 3'],
  },
  { file: 'test/operations/sandbox.int.test.ts', tests: ['last in-sync replica wiped', 'raise-rf that copies'] },
  // The refusal deletes the RF-1 topic that would block the rolling restart.
  { file: 'test/operations/serve-restart.int.test.ts', tests: ['refuses to restart a broker that is the only replica', 'rolls all three brokers'] },
  // Runs on 2.8 only (KIP-664's APIs are 3.0+); a skip elsewhere.
  { file: 'test/operations/transactions.int.test.ts', tests: ['before 3.0: "not available'] },
];

export const testNamePattern = () => MATRIX_TESTS.flatMap((f) => f.tests).join('|');

/** A line's sandbox: beside the run's own (or the test default), ports 100 apart per line. */
export function lineEnv(line: Line, index: number, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const home = env.KR_SANDBOX_HOME ?? join(tmpdir(), 'kafka-responder-test-sandbox');
  const base = Number(env.KR_SANDBOX_PORT_BASE ?? 29090);
  return {
    ...env,
    KAFKA_VERSION: line.kafkaVersion,
    KR_SANDBOX_MODE: line.mode,
    KR_SANDBOX_HOME: `${home}-${line.name}`,
    KR_SANDBOX_PORT_BASE: String(base + 100 * (index + 1)),
  };
}

/** Runs one line's tests in a child vitest, its output prefixed with the line's name. */
function runLine(line: Line, index: number): Promise<{ line: string; seconds: number; passed: boolean }> {
  console.log(`=== matrix line ${line.name}: Kafka ${line.kafkaVersion}, ${line.mode === 'zookeeper' ? 'ZooKeeper' : 'KRaft'} mode ===`);
  const t0 = Date.now();
  const child = spawn(
    process.execPath,
    [join('node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'integration', ...MATRIX_TESTS.map((f) => f.file), '--testNamePattern', testNamePattern()],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...lineEnv(line, index), NO_COLOR: '1' } },
  );
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (text) => console.log(`[${line.name}] ${text}`));
  }
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const seconds = Math.round((Date.now() - t0) / 1000);
      console.log(`=== matrix line ${line.name}: ${code === 0 ? 'passed' : 'FAILED'} in ${seconds} s ===`);
      resolve({ line: line.name, seconds, passed: code === 0 });
    });
  });
}

async function main(): Promise<number> {
  const wanted = process.env.KR_MATRIX_LINES?.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = wanted?.filter((w) => !LINES.some((l) => l.name === w)) ?? [];
  if (unknown.length) {
    console.error(`KR_MATRIX_LINES: unknown line(s) ${unknown.join(', ')}; lines are ${LINES.map((l) => l.name).join(', ')}`);
    return 2;
  }
  const concurrency = Math.max(1, Number(process.env.KR_MATRIX_CONCURRENCY ?? LINES.length) || 1);
  const queue = LINES.map((line, index) => ({ line, index })).filter(({ line }) => !wanted || wanted.includes(line.name));
  const results: { line: string; seconds: number; passed: boolean }[] = [];
  const t0 = Date.now();
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) results.push(await runLine(next.line, next.index));
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  writeFileSync(join(tmpdir(), 'kafka-responder-matrix.json'), JSON.stringify(results, null, 2));
  const wall = Math.round((Date.now() - t0) / 1000);
  console.log(`\nmatrix (${wall} s): ${results.map((r) => `${r.line} ${r.passed ? 'passed' : 'FAILED'} in ${r.seconds} s`).join('; ')}`);
  return results.length > 0 && results.every((r) => r.passed) ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(await main());
