// Metrics as evidence: what they cost a diagnosis (target: under 500 ms added),
// how long the graph takes to draw, and what the worker Lambda's bundle weighs
// before and after.
//
//   npx tsx bench/metrics.ts [--before /path/to/an/older/checkout]
//
// - "read": every catalog metric from a Prometheus on loopback (a local HTTP
//   server answering /api/v1/query_range like Prometheus 2.x: 12 brokers ×
//   241 points a metric, an hour at 15 s), all queries at once as the
//   diagnoser sends them. This runs concurrently with the snapshot and probes,
//   so it adds to a diagnosis only where it outlasts them.
// - "enrich": the pure step (evidence lines + graph choice) over 40 findings.
// - "render": the PNG of three panels × 12 brokers; first (cold) and median of 20.
// - "added": what a diagnosis waits for after its snapshot: max(0, read −
//   diagnosis time) + enrich + render; printed for a 1 s diagnosis (a quick
//   one) and as the worst case (read fully on the critical path).
// - bundle: handlers/worker.ts bundled with serverless.yml's esbuild settings
//   (one file, minified), raw and gzipped (the zip Lambda loads is deflated).
//   With --before DIR the same for that checkout (e.g. a worktree of main).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { METRIC_IDS } from '../lib/diagnose/metrics/catalog.ts';
import { renderChart } from '../lib/diagnose/metrics/chart/chart.ts';
import { readMetrics, reportChart, withMetrics } from '../lib/diagnose/metrics/index.ts';
import { prometheusSource } from '../lib/diagnose/metrics/prometheus.ts';
import { windowEnding } from '../lib/diagnose/metrics/types.ts';
import { makeFinding } from '../lib/diagnose/finding.ts';
import type { DiagnosisReport } from '../lib/diagnose/types.ts';

const BROKERS = 12;
const NOW = Date.now();
const window = windowEnding(NOW, 60);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function fakePrometheus(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const p = new URLSearchParams(body);
      const start = Number(p.get('start'));
      const end = Number(p.get('end'));
      const step = parseInt(p.get('step') ?? '15', 10);
      const result = Array.from({ length: BROKERS }, (_, b) => ({
        metric: { broker: String(b + 1) },
        values: Array.from({ length: Math.floor((end - start) / step) + 1 }, (_, i) => [start + i * step, String(i > 200 && b === 1 ? 5 : (i * 7 + b) % 3 === 0 ? 0 : 0)]),
      }));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result } }));
    });
  });
  const port = Number(process.env.KR_BENCH_PORT ?? 20660);
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

function findings() {
  return Array.from({ length: 40 }, (_, i) =>
    makeFinding({ kind: i % 2 ? 'under-replicated' : 'broker-unreachable', severity: 'warning', title: `f${i}`, summary: 's', brokers: [1 + (i % BROKERS)], evidence: [{ label: 'x', value: 'y' }] }),
  );
}

async function bundleSize(root: string): Promise<{ raw: number; gzip: number } | null> {
  const entry = join(root, 'handlers', 'worker.ts');
  try {
    statSync(entry);
  } catch {
    return null;
  }
  const out = mkdtempSync(join(tmpdir(), 'kr-bench-bundle-'));
  try {
    const require = (await import('node:module')).createRequire(import.meta.url);
    const plugins = require(join(root, 'handlers', 'build', 'esbuild-plugins.cjs')) as esbuild.Plugin[];
    await esbuild.build({
      entryPoints: [entry],
      outfile: join(out, 'worker.mjs'),
      bundle: true,
      minify: true,
      keepNames: true,
      target: 'node22',
      platform: 'node',
      format: 'esm',
      banner: { js: "import { createRequire as __krCreateRequire } from 'node:module'; const require = __krCreateRequire(import.meta.url);" },
      plugins,
      nodePaths: [join(root, 'node_modules'), resolve('node_modules')],
      logLevel: 'silent',
    });
    const bytes = readFileSync(join(out, 'worker.mjs'));
    return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const kb = (n: number) => `${(n / 1024).toFixed(0)} KiB`;

async function main(): Promise<void> {
  const prom = await fakePrometheus();
  const source = prometheusSource({ url: prom.url, auth: { type: 'none' }, labels: { cluster: 'bench' }, brokerLabel: 'broker', timeoutMs: 5000 });
  const reads: number[] = [];
  let last = null as Awaited<ReturnType<typeof readMetrics>> | null;
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    last = await readMetrics(source, window);
    reads.push(performance.now() - t);
  }
  await prom.close();
  const series = last!.reading!.series.length;
  console.log(`read: ${METRIC_IDS.length} queries, ${series} series × ${window.toMs > window.fromMs ? Math.round((window.toMs - window.fromMs) / window.stepMs) + 1 : 0} points: first ${reads[0]!.toFixed(0)} ms, median ${median(reads.slice(1)).toFixed(1)} ms`);

  const report: DiagnosisReport = { cluster: 'bench', startedAt: new Date(NOW).toISOString(), durationMs: 1000, findings: findings(), skippedChecks: [], partial: false };
  const enrichTimes: number[] = [];
  let enriched = report;
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    enriched = withMetrics(report, last!, { atMs: NOW - 10 * 60_000, metric: 'UnderReplicatedPartitions' });
    enrichTimes.push(performance.now() - t);
  }
  console.log(`enrich: 40 findings: first ${enrichTimes[0]!.toFixed(1)} ms, median ${median(enrichTimes.slice(1)).toFixed(2)} ms`);

  const renders: number[] = [];
  let png: Buffer = Buffer.alloc(0);
  for (let i = 0; i < 21; i++) {
    const t = performance.now();
    png = reportChart(enriched)!.png;
    renders.push(performance.now() - t);
  }
  console.log(`render: ${enriched.metrics!.chart.length} panels × ${BROKERS} brokers, ${kb(png.length)} PNG: first ${renders[0]!.toFixed(0)} ms, median ${median(renders.slice(1)).toFixed(1)} ms`);
  const direct = renderChart({ title: 't', window, metrics: enriched.metrics!.chart, series: enriched.metrics!.series });
  if (direct.length === 0) throw new Error('empty PNG');

  const readMs = median(reads.slice(1));
  const post = median(enrichTimes.slice(1)) + median(renders.slice(1));
  console.log(`added per diagnosis: ${(Math.max(0, readMs - 1000) + post).toFixed(1)} ms when the diagnosis itself takes 1 s; worst case (read on the critical path) ${(readMs + post).toFixed(1)} ms (target < 500 ms; the upload, one more Slack call, not counted)`);

  const after = await bundleSize(process.cwd());
  const beforeDir = process.argv.includes('--before') ? process.argv[process.argv.indexOf('--before') + 1] : undefined;
  const before = beforeDir ? await bundleSize(resolve(beforeDir)) : null;
  if (after) console.log(`worker bundle: ${kb(after.raw)} minified, ${kb(after.gzip)} gzipped${before ? ` (before: ${kb(before.raw)}, ${kb(before.gzip)} gzipped; +${kb(after.raw - before.raw)} / +${kb(after.gzip - before.gzip)})` : ''}`);
}

await main();
