// The measured side of bench/fleet.ts: the worker's diagnosis entry
// (createDefaultDiagnoser → runDiagnosis, no host access) against the replay
// server, then the Slack rendering the worker posts. Prints one JSON line:
// wall time, peak RSS (VmHWM), and per-API request spans and decode time.
import { readFileSync } from 'node:fs';
import { parseConfig } from '../../lib/config/schema.ts';
import { createDefaultDiagnoser } from '../../lib/diagnose/diagnoser.ts';
import { renderDiagnosis } from '../../lib/diagnose/render-slack.ts';
import { renderReportMarkdown } from '../../lib/diagnose/render-markdown.ts';
import { KAFKAJS, WireBroker, type RequestDefinition, type RequestOptions, type WireApi } from '../../lib/kafka/wire.ts';
import { Metadata } from '../../lib/kafka/api/metadata/codec.ts';
import { OffsetFetch } from '../../lib/kafka/api/offset-fetch/codec.ts';
import { ListOffsets } from '../../lib/kafka/api/list-offsets/codec.ts';
import { BROKERS, PORT_BASE } from './cluster.ts';

interface ApiStats {
  requests: number;
  first: number;
  last: number;
  decodeMs: number;
}
const stats = new Map<string, ApiStats>();
const statOf = (name: string) => {
  let s = stats.get(name);
  if (!s) stats.set(name, (s = { requests: 0, first: Infinity, last: 0, decodeMs: 0 }));
  return s;
};

// Decode time of kafkajs's decoders (it runs on this thread when a response arrives).
for (const [name, api] of Object.entries(KAFKAJS)) {
  const def = api.kafkajs;
  const wrapped: RequestDefinition = {
    versions: def.versions,
    protocol: (o) => (args) => {
      const p = def.protocol(o)(args);
      const decode = p.response.decode.bind(p.response);
      return { ...p, response: { ...p.response, decode: async (raw: Buffer) => {
        const t = performance.now();
        const out = await decode(raw);
        statOf(name).decodeMs += performance.now() - t;
        return out;
      } } };
    },
  };
  (api as { kafkajs: RequestDefinition }).kafkajs = wrapped;
}
// Decode time of our own decoders (lib/kafka/api/<name>/codec.ts), the same way.
for (const def of [Metadata, OffsetFetch, ListOffsets] as { apiName: string; decode(version: number, body: Buffer): unknown }[]) {
  const decode = def.decode.bind(def);
  def.decode = (version, body) => {
    const t = performance.now();
    try {
      return decode(version, body);
    } finally {
      statOf(def.apiName).decodeMs += performance.now() - t;
    }
  };
}
// Spans per API: first request sent to last answer received.
const request = WireBroker.prototype.request;
WireBroker.prototype.request = async function <A, R>(this: WireBroker, api: WireApi<A, R>, args: A, options?: RequestOptions): Promise<R> {
  const s = statOf(api.apiName === 'FindCoordinator' ? 'FindCoordinator' : api.apiName);
  s.requests++;
  s.first = Math.min(s.first, performance.now());
  try {
    return (await request.call(this, api as WireApi<unknown, unknown>, args, options)) as R;
  } finally {
    s.last = Math.max(s.last, performance.now());
  }
};

const peakRssMb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;

const config = parseConfig({
  clusters: [{ name: 'fleet', bootstrap: Array.from({ length: 3 }, (_, i) => `127.0.0.1:${PORT_BASE + i * 17}`) }],
  defaultCluster: 'fleet',
  slack: { allowedTeams: ['T0FLEET00'], allowedChannels: ['C0FLEET00'], allowedUsers: ['U0FLEET00'], incidentChannel: 'C0FLEET00' },
});
const cluster = config.clusters[0]!;
const lagWindowMs = Number(process.env.FLEET_LAG_WINDOW_MS ?? cluster.lagWindowMs);
const cpuAtStart = process.cpuUsage();
const started = performance.now();
const report = await createDefaultDiagnoser(async () => null).diagnose({ cluster: { ...cluster, lagWindowMs }, correlationId: 'fleet-bench' });
const diagnosed = performance.now();
const rendered = renderDiagnosis(report, { correlationId: 'fleet-bench' });
const markdown = renderReportMarkdown(report);
const renderedAt = performance.now();
const rssAfter = peakRssMb();
const cpu = process.cpuUsage(cpuAtStart);

process.stdout.write(
  `${JSON.stringify({
    brokersInMetadata: BROKERS,
    wallMs: renderedAt - started,
    cpuMs: (cpu.user + cpu.system) / 1000,
    diagnoseMs: diagnosed - started,
    renderMs: renderedAt - diagnosed,
    reportDurationMs: report.durationMs,
    peakRssMb: rssAfter,
    findings: report.findings.length,
    kinds: [...new Set(report.findings.map((f) => f.kind))],
    partial: report.partial,
    snapshotErrors: (report.snapshotErrors ?? []).slice(0, 5),
    blocks: rendered.blocks?.length ?? 0,
    markdownChars: markdown.length,
    apis: Object.fromEntries([...stats].map(([k, s]) => [k, { requests: s.requests, startMs: Math.round(s.first - started), endMs: Math.round(s.last - started), decodeMs: Math.round(s.decodeMs) }])),
  })}\n`,
);
process.exit(0);
