// Prometheus as a metrics source: one /api/v1/query_range per metric of the
// catalog, all at once, each bounded by the source's timeout. The answer is
// outside input: zod checks its shape before a number of it is used.
import * as z from 'zod';
import type { MetricsConfig } from '../../config/schema.ts';
import { errorMessage } from '../../runtime/errors.ts';
import { METRICS, type MetricId } from './catalog.ts';
import type { MetricSeries, MetricsReading, MetricsSource, TimeWindow } from './types.ts';

export type PrometheusConfig = NonNullable<MetricsConfig['prometheus']>;

const rangeAnswer = z.object({
  status: z.literal('success'),
  data: z.object({
    resultType: z.literal('matrix'),
    result: z.array(z.object({ metric: z.record(z.string(), z.string()), values: z.array(z.tuple([z.number(), z.string()])) })),
  }),
});
const errorAnswer = z.object({ status: z.literal('error'), errorType: z.string().optional(), error: z.string() });

/** A label value inside double quotes, as PromQL reads it. */
function quoteLabel(value: string): string {
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

/** The catalog's query for this cluster: its label matchers, its broker label, a rate window that spans a few scrapes. */
export function promQuery(metric: MetricId, config: Pick<PrometheusConfig, 'labels' | 'brokerLabel'>, window: TimeWindow): string {
  const matchers = Object.entries(config.labels).map(([k, v]) => `${k}=${quoteLabel(v)}`).join(',');
  const rangeSeconds = Math.max(60, Math.round((4 * window.stepMs) / 1000));
  return METRICS[metric].promql
    .replace(/\{SEL,/g, matchers ? `{${matchers},` : '{')
    .replace(/\{SEL\}/g, matchers ? `{${matchers}}` : '')
    .replace(/,SEL\}/g, matchers ? `,${matchers}}` : '}')
    .replace(/\bBY\b/g, config.brokerLabel)
    .replace(/\bRANGE\b/g, `${rangeSeconds}s`);
}

/** "2", "b-2.mycluster.kafka.eu-west-1.amazonaws.com:11001", "kafka-2:9404", "broker2" → 2; an IP address → null. */
export function brokerIdFromLabel(value: string | undefined): number | null {
  if (value === undefined) return null;
  if (/^\d{1,9}$/.test(value)) return Number(value);
  const m = /^[a-z][a-z-]*?-?(\d{1,9})(?:[.:]|$)/i.exec(value);
  return m ? Number(m[1]) : null;
}

function authHeader(auth: PrometheusConfig['auth'], env: NodeJS.ProcessEnv): string | null {
  if (auth.type === 'bearer') {
    const token = env[auth.tokenEnv];
    if (!token) throw new Error(`the Prometheus bearer token is not set (environment variable ${auth.tokenEnv})`);
    return `Bearer ${token}`;
  }
  if (auth.type === 'basic') {
    const user = env[auth.usernameEnv];
    const password = env[auth.passwordEnv];
    if (!user || password === undefined) throw new Error(`the Prometheus basic auth is not set (${auth.usernameEnv} / ${auth.passwordEnv})`);
    return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  }
  return null;
}

export function prometheusSource(config: PrometheusConfig, opts: { env?: NodeJS.ProcessEnv; fetch?: typeof fetch } = {}): MetricsSource {
  const env = opts.env ?? process.env;
  const doFetch = opts.fetch ?? fetch;
  const endpoint = `${config.url.replace(/\/+$/, '')}/api/v1/query_range`;

  async function one(metric: MetricId, window: TimeWindow, signal: AbortSignal): Promise<MetricSeries[]> {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    const auth = authHeader(config.auth, env);
    if (auth) headers.authorization = auth;
    const body = new URLSearchParams({
      query: promQuery(metric, config, window),
      start: String(window.fromMs / 1000),
      end: String(window.toMs / 1000),
      step: `${window.stepMs / 1000}s`,
    });
    const res = await doFetch(endpoint, { method: 'POST', headers, body, signal });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new Error(`Prometheus answered ${res.status} with no JSON`);
    }
    const failed = errorAnswer.safeParse(json);
    if (failed.success) throw new Error(`Prometheus: ${failed.data.error}`);
    const parsed = rangeAnswer.safeParse(json);
    if (!parsed.success) throw new Error(`Prometheus answered ${res.status} with an unexpected shape`);
    const unit = METRICS[metric].unit;
    return parsed.data.data.result.map((r) => {
      const label = r.metric[config.brokerLabel];
      const broker = brokerIdFromLabel(label);
      const points = r.values
        .map(([t, v]) => [Math.round(t * 1000), Number(v)] as [number, number])
        .filter(([, v]) => Number.isFinite(v));
      return { metric, broker, ...(broker === null && label ? { label } : {}), unit, points };
    });
  }

  return {
    kind: 'prometheus',
    async read(metrics, window, opts = {}) {
      const { signal } = opts;
      const timeout = AbortSignal.timeout(config.timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      const settled = await Promise.allSettled(metrics.map((m) => one(m, window, combined)));
      const reading: MetricsReading = { source: 'prometheus', window, series: [], missing: [] };
      settled.forEach((s, i) => {
        const metric = metrics[i]!;
        if (s.status === 'rejected') reading.missing.push({ metric, reason: combined.aborted ? `no answer within ${config.timeoutMs} ms` : errorMessage(s.reason) });
        else if (s.value.length === 0) reading.missing.push({ metric, reason: 'no series' });
        else reading.series.push(...s.value);
      });
      return reading;
    },
  };
}
