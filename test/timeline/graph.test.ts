// The postmortem timeline carries the incident's metrics graph: the span it
// covers (pure), and through the real Slack handler and worker (the
// composition root wires lib/timeline/graph.ts) with a Prometheus HTTP API
// served here: the PNG is decoded (size, non-blank, one line per broker, the
// alert marked, URP rising at the stop). Without a metrics source the
// timeline is exactly as before; a source that is down only loses the graph.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BROKER_COLOURS, MARK_COLOUR, plotArea } from '../../lib/diagnose/metrics/chart/chart.ts';
import { incidentIdOf, openIncident, recordIncidentEvent, type IncidentMeta } from '../../lib/state/incident-log.ts';
import { buildTimeline } from '../../lib/timeline/build.ts';
import { incidentSpan, LEAD_MS, MAX_SPAN_MS, TAIL_MS } from '../../lib/timeline/graph.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { countColour, decodePng, nonWhite } from '../helpers/png.ts';
import { BASE_CONFIG, buildHarness, type Harness } from '../slack/helpers/harness.ts';
import { slashEvent } from '../slack/helpers/signed.ts';
import { SlackStub } from '../slack/helpers/slack-stub.ts';

const NOW = Date.now();
const min = (m: number) => NOW + m * 60_000;
/** Broker 2 stops 21 minutes ago; the alert fires a minute later; resolved 5 minutes ago. */
const STOP = min(-21);
const at = (ms: number) => new Date(ms).toISOString();

describe('the span the timeline graph covers', () => {
  const meta: IncidentMeta = { id: 'x', channel: 'C0OPS', threadTs: '1.1', title: 't', cluster: 'sandbox', openedAt: at(min(-20)), origin: 'alert' };
  const alert = (ms: number, status: 'firing' | 'resolved') => ({ type: 'alert' as const, at: at(ms), status, source: 'alertmanager', alertname: 'KafkaUnderReplicatedPartitions', title: 't', count: 1 });
  it('runs from before the first event to after the last, never past now, the first firing marked', () => {
    // The diagnosis reports a broker start 50 minutes back: the cluster's history, not the incident's span.
    const diagnosis = { type: 'diagnosis' as const, at: at(min(-19)), cluster: 'sandbox', durationMs: 1, partial: false, findings: [], changes: [{ code: 'broker-started', broker: 1, at: at(min(-50)) }] };
    const t = buildTimeline(meta, [alert(min(-20), 'firing'), diagnosis, alert(min(-5), 'resolved')], []);
    expect(t.entries.map((e) => e.code)).toContain('cluster-change');
    expect(incidentSpan(t, NOW)).toEqual({ fromMs: min(-20) - LEAD_MS, toMs: NOW, markAtMs: min(-20) });
    expect(incidentSpan(t, min(60))).toEqual({ fromMs: min(-20) - LEAD_MS, toMs: min(-5) + TAIL_MS, markAtMs: min(-20) });
  });
  it('a thread open for days is graphed over its last day; no alert, no mark', () => {
    const t = buildTimeline({ ...meta, openedAt: at(min(-5 * 24 * 60)), origin: 'diagnosis' }, [], []);
    const span = incidentSpan(t, NOW);
    expect(span.toMs - span.fromMs).toBe(Math.min(MAX_SPAN_MS, 5 * 24 * 3600_000 + LEAD_MS - (NOW - span.toMs)));
    expect(span.markAtMs).toBeUndefined();
  });
});

/** A Prometheus query_range API: URP 0 until STOP then 6 on brokers 1 and 3 (broker 2 gone); ISR shrinks; handler idle. */
function fakePrometheus(): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const p = new URLSearchParams(body);
      const q = p.get('query') ?? '';
      const [start, end, step] = [Number(p.get('start')), Number(p.get('end')), Number((p.get('step') ?? '15s').replace(/s$/, ''))];
      const value = q.includes('underreplicated') ? (t: number) => (t > STOP ? 6 : 0) : q.includes('isrshrinks') ? (t: number) => (t > STOP ? 0.3 : 0) : q.includes('requesthandler') ? () => 0.85 : null;
      const result = value
        ? [1, 2, 3].map((b) => {
            const values: [number, string][] = [];
            for (let s = start; s <= end; s += step) if (!(b === 2 && s * 1000 > STOP)) values.push([s, String(value(s * 1000))]);
            return { metric: { broker: String(b) }, values };
          })
        : [];
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ status: 'success', data: { resultType: 'matrix', result } }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('the timeline in the thread, with the graph', () => {
  let db: DynaliteHandle;
  let stub: SlackStub;
  let prom: Server;
  let seq = 0;
  beforeAll(async () => {
    [db, stub, prom] = await Promise.all([startDynalite(), new SlackStub().start(), fakePrometheus()]);
  });
  afterAll(async () => {
    prom.close();
    await stub.stop();
    await db.close();
  });
  beforeEach(() => stub.reset());

  const withPrometheus = (url: string) => ({
    ...BASE_CONFIG,
    clusters: BASE_CONFIG.clusters.map((c) => (c.name === 'sandbox' ? { ...c, metrics: { prometheus: { url, brokerLabel: 'broker' } } } : c)),
  });

  /** An alert thread: firing, a diagnosis, resolved. */
  async function incident(h: Harness): Promise<string> {
    const threadTs = `${Math.floor(NOW / 1000) - 1200}.${String(++seq).padStart(6, '0')}`;
    const thread = { channel: 'C0INCIDENT', threadTs };
    await openIncident(db.store, { ...thread, title: 'Under-replicated partitions on sandbox', cluster: 'sandbox', openedAt: at(min(-20)), origin: 'alert' });
    const alert = (ms: number, status: 'firing' | 'resolved') => ({ type: 'alert' as const, at: at(ms), status, source: 'alertmanager', alertname: 'KafkaUnderReplicatedPartitions', title: 'URP', cluster: 'sandbox', count: 1 });
    await recordIncidentEvent(db.store, thread, alert(min(-20), 'firing'));
    await recordIncidentEvent(db.store, thread, { type: 'diagnosis', at: at(min(-19)), cluster: 'sandbox', durationMs: 900, partial: false, findings: [{ fingerprint: 'fp', kind: 'under-replicated', severity: 'warning', title: '6 partitions under-replicated' }], changes: [] });
    await recordIncidentEvent(db.store, thread, alert(min(-5), 'resolved'));
    const res = await h.handler(slashEvent({ text: `timeline C0INCIDENT/${threadTs}`, user: 'U0ALICE', channel: 'C0OPS', responseUrl: stub.responseUrl(`t${seq}`) }));
    expect(res.statusCode).toBe(200);
    await h.queue.idle();
    expect(incidentIdOf('C0INCIDENT', threadTs)).toMatch(/^[0-9a-f]{16}$/);
    return threadTs;
  }

  it('posts the markdown file and the incident graph in the thread: one line per broker, the alert marked, URP rising at the stop', async () => {
    const h = buildHarness({ stub, store: db.store, config: withPrometheus(`http://127.0.0.1:${(prom.address() as AddressInfo).port}`) });
    const threadTs = await incident(h);
    const files = stub.uploads.filter((u) => u.thread_ts === threadTs);
    expect(files.map((f) => f.filename?.split('.').pop())).toEqual(['md', 'png']);
    const [md, png] = files;
    expect(md!.content).toContain('## Graphs');
    expect(md!.content).toContain(`\`${png!.filename}\``);
    expect(png!.filename).toMatch(/^sandbox-metrics-\d{8}T\d{4}\.png$/);

    const image = decodePng(png!.bytes);
    expect(image.width).toBe(1200);
    expect(image.height).toBeGreaterThan(400);
    expect(nonWhite(image)).toBeGreaterThan(20_000);
    // One line colour per broker: three brokers drawn, no fourth.
    for (const c of BROKER_COLOURS.slice(0, 3)) expect(countColour(image, c)).toBeGreaterThan(50);
    expect(countColour(image, BROKER_COLOURS[3]!)).toBe(0);
    expect(countColour(image, MARK_COLOUR), 'the alert firing marked').toBeGreaterThan(50);
    // URP (first panel) lies on zero before the stop and stands above it after.
    // The graph spans the incident: 15 min before the alert until now (the last event + 10 min is later).
    const area = plotArea({ fromMs: min(-20) - LEAD_MS, toMs: Date.now(), stepMs: 1 }, 0);
    const lined = (x0: number, x1: number) => BROKER_COLOURS.slice(0, 3).reduce((n, c) => n + countColour(image, c, { x0: Math.round(x0), x1: Math.round(x1), y0: area.top, y1: area.bottom - 4 }), 0);
    expect(lined(area.x0 + 5, area.xOf(STOP - 60_000))).toBe(0);
    expect(lined(area.xOf(STOP + 60_000), area.x1)).toBeGreaterThan(50);
  });

  it('without a metrics source: the timeline alone, exactly as before; with Prometheus down: the timeline alone', async () => {
    const plain = buildHarness({ stub, store: db.store });
    const t1 = await incident(plain);
    const only = stub.uploads.filter((u) => u.thread_ts === t1);
    expect(only).toHaveLength(1);
    expect(only[0]!.filename).toMatch(/^timeline-sandbox-.*\.md$/);
    expect(only[0]!.content).not.toContain('## Graphs');

    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    closed.close();
    const down = buildHarness({ stub, store: db.store, config: withPrometheus(deadUrl) });
    const t2 = await incident(down);
    const files = stub.uploads.filter((u) => u.thread_ts === t2);
    expect(files.map((f) => f.filename?.endsWith('.md'))).toEqual([true]);
    expect(files[0]!.content).not.toContain('## Graphs');
  });
});
