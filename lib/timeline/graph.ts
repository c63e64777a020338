// The incident's metrics graph for its postmortem timeline: the cluster's
// metrics (lib/diagnose/metrics/) over the incident's own span, from a little
// before the first event to a little after the last, the first alert's firing
// marked. Without a metrics source for the cluster there is no graph and the
// timeline is exactly as before; a graph that cannot be read or drawn is
// simply left out (lib/timeline/jobs.ts logs it).
import type { ClusterConfig, Config } from '../config/schema.ts';
import type { MetricsSource } from '../diagnose/metrics/types.ts';
import type { FileUpload } from '../slack/web.ts';
import type { Timeline } from './build.ts';

/** Context before the first event and after the last: the graph shows the run-up and the recovery. */
export const LEAD_MS = 15 * 60_000;
export const TAIL_MS = 10 * 60_000;
/** A long-running thread is graphed over its last day (a metrics store's query_range limit, CloudWatch's cost). */
export const MAX_SPAN_MS = 24 * 3600_000;

export interface IncidentSpan {
  fromMs: number;
  toMs: number;
  /** The first alert firing, marked on the graph. */
  markAtMs?: number;
}

/**
 * The span the graph covers (pure): from LEAD_MS before the incident's first
 * event to TAIL_MS after its last, never past now. The cluster's changes are
 * not the incident's events: a diagnosis reports an hour of them.
 */
export function incidentSpan(t: Timeline, nowMs: number): IncidentSpan {
  const own = t.entries.filter((e) => e.code !== 'cluster-change');
  const times = [Date.parse(t.incident.openedAt), ...own.map((e) => Date.parse(e.at))].filter((ms) => Number.isFinite(ms) && ms <= nowMs);
  const first = times.length ? Math.min(...times) : nowMs;
  const last = times.length ? Math.max(...times) : nowMs;
  const toMs = Math.min(nowMs, last + TAIL_MS);
  const fromMs = Math.max(first - LEAD_MS, toMs - MAX_SPAN_MS);
  const firing = t.entries.find((e) => e.code === 'alert-firing');
  const markAtMs = firing ? Date.parse(firing.at) : undefined;
  return { fromMs, toMs, ...(markAtMs !== undefined && markAtMs >= fromMs ? { markAtMs } : {}) };
}

/** Broker ids the cluster's config or the timeline names: CloudWatch asks per broker (Prometheus needs none). */
export function brokersOf(cluster: ClusterConfig, t: Timeline): number[] {
  const ids = new Set<number>();
  if (cluster.hosts.executor === 'ssm') for (const id of Object.keys(cluster.hosts.instances)) ids.add(Number(id));
  if (cluster.hosts.executor === 'local') for (const id of Object.keys(cluster.hosts.hostDirs)) ids.add(Number(id));
  for (const e of t.entries) if (e.code === 'cluster-change' && 'broker' in e.change && e.change.broker !== null) ids.add(e.change.broker);
  return [...ids].filter(Number.isInteger).sort((a, b) => a - b);
}

export type TimelineFile = Omit<FileUpload, 'channel' | 'thread_ts'>;

/** The timeline's graph from the config's metrics source (or `opts.source`, tests): none for a cluster without one. */
export function timelineGraph(config: Pick<Config, 'clusters'>, opts: { nowMs?: () => number; source?: MetricsSource } = {}): (t: Timeline) => Promise<TimelineFile[]> {
  const nowMs = opts.nowMs ?? Date.now;
  return async (t) => {
    const name = t.incident.cluster ?? t.clusters[0];
    const cluster = config.clusters.find((c) => c.name === name);
    if (!cluster?.metrics) return [];
    // Loaded only for a cluster with metrics: the timeline of one without pays nothing.
    const { renderClusterChart } = await import('../diagnose/metrics/index.ts');
    const span = incidentSpan(t, nowMs());
    const chart = await renderClusterChart(cluster, { ...span, brokers: brokersOf(cluster, t), ...(opts.source ? { source: opts.source } : {}) });
    return chart ? [{ filename: chart.filename, title: `${chart.title}, over the incident`, content: chart.png }] : [];
  };
}
