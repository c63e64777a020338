// Which cluster an alert is about: the config's labels per source, and an
// alert no configured cluster takes still gets its thread, with a reply that
// says why and which label (or alias) to add.
import { describe, expect, it } from 'vitest';
import { createHttpAlertHandler } from '../../lib/alerts/intake.ts';
import { routeAlert } from '../../lib/alerts/routing.ts';
import { grafanaSource } from '../../lib/alerts/sources/grafana.ts';
import type { AlertEvent } from '../../lib/alerts/event.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import { ScriptedDiagnoser, BASE_CONFIG, buildHarness } from '../slack/helpers/harness.ts';
import { useSlackStubAndDynalite } from '../slack/helpers/slack-and-dynalite.ts';
import { grafanaExample } from './fixtures/grafana.ts';

const TOKEN = 'grafana-token-0123456789abcdef';
const TWO_CLUSTERS = { ...BASE_CONFIG, defaultCluster: undefined };
const event = (labels: Record<string, string>, clusterHint?: string): AlertEvent => ({
  source: 'grafana', groupKey: 'g', status: 'firing', alertname: 'KafkaConsumerLag', title: 't', summary: '', labels, at: '2026-11-29T07:00:00Z', brokers: [], topics: [], count: 1, ...(clusterHint ? { clusterHint } : {}),
});

describe('routing an alert to a cluster', () => {
  it("takes the config's labels for the source first (alerts.clusterLabels)", () => {
    const config = parseConfig({ ...TWO_CLUSTERS, alerts: { clusterLabels: { grafana: ['kafka_cluster_name'] } } });
    expect(routeAlert(event({ kafka_cluster_name: 'other' }), config).cluster?.name).toBe('other');
    // Another source's alert does not read grafana's labels.
    expect(routeAlert({ ...event({ kafka_cluster_name: 'other' }), source: 'alertmanager' }, config).cluster).toBeUndefined();
  });

  it('an unknown cluster: which label said what, and the alias to add', () => {
    const r = routeAlert(event({ cluster: 'mystery' }, 'mystery'), parseConfig(TWO_CLUSTERS));
    expect(r.cluster).toBeUndefined();
    expect(r.unmapped!.why).toBe('the alert\'s `cluster` label says "mystery", which is neither the name nor an alias of a configured cluster (`sandbox`, `other`)');
    expect(r.unmapped!.fix).toContain('add "mystery" to that cluster\'s `aliases`');
  });

  it('no cluster label with several clusters and no default: the label to add', () => {
    const r = routeAlert(event({ team: 'blue' }), parseConfig(TWO_CLUSTERS));
    expect(r.unmapped!.why).toMatch(/^the alert carries none of the labels that name a cluster \(`cluster`, `kafka_cluster`/);
    expect(r.unmapped!.fix).toBe('add a `cluster` label naming one of `sandbox`, `other` to the alert rule, or list the label your alerts use in `alerts.clusterLabels.grafana`');
  });

  it('escapes what the alert says', () => {
    const r = routeAlert(event({ cluster: '<!channel> & co' }, '<!channel> & co'), parseConfig(TWO_CLUSTERS));
    expect(r.unmapped!.why).toContain('"&lt;!channel&gt; &amp; co"');
  });
});

describe("Grafana's threads", () => {
  const env = useSlackStubAndDynalite();

  it('fire, resolve, fire, resolve: one thread, resolved in place, called out as flapping', async () => {
    const h = buildHarness({ stub: env.stub, store: env.db.store, diagnoser: new ScriptedDiagnoser() });
    const intake = createHttpAlertHandler(grafanaSource, { queue: h.queue, store: new MemoryStateStore(), log: h.log, secret: TOKEN });
    const steps = ['firing', 'resolved', 'firing', 'resolved'] as const;
    for (const [i, status] of steps.entries()) {
      // Within the flapping window: each transition a minute after the last, the last a minute ago.
      const at = new Date(Date.now() - (steps.length - i) * 60_000).toISOString();
      const example = grafanaExample({ cluster: 'sandbox', groupKey: 'flap', status }) as { alerts: Record<string, unknown>[] };
      example.alerts = example.alerts.map((a) => ({ ...a, startsAt: at, endsAt: status === 'resolved' ? at : '0001-01-01T00:00:00Z' }));
      const body = JSON.stringify(example);
      expect((await intake({ rawPath: '/alerts/grafana', headers: { authorization: `Bearer ${TOKEN}` }, body, requestContext: { http: { method: 'POST' } } })).statusCode).toBe(202);
      await h.queue.idle();
    }
    const parents = env.stub.topLevel().filter((m) => m.text.includes('High memory usage'));
    expect(parents).toHaveLength(1);
    expect(parents[0]!.text).toBe('FLAPPING RESOLVED: High memory usage on sandbox');
    expect(env.stub.thread(parents[0]!.ts).some((m) => m.text === 'This alert is flapping')).toBe(true);
  });

  it("Grafana's documented example (no cluster label) with two clusters: a thread, and a reply saying which label to add", async () => {
    const h = buildHarness({ stub: env.stub, store: env.db.store, diagnoser: new ScriptedDiagnoser(), config: TWO_CLUSTERS });
    const intake = createHttpAlertHandler(grafanaSource, { queue: h.queue, store: new MemoryStateStore(), log: h.log, secret: TOKEN });
    const res = await intake({ rawPath: '/alerts/grafana', headers: { authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(grafanaExample({ groupKey: 'unmapped' })), requestContext: { http: { method: 'POST' } } });
    expect(res.statusCode).toBe(202);
    await h.queue.idle();
    const parent = env.stub.topLevel().find((m) => m.text === 'FIRING: High memory usage');
    const reply = env.stub.thread(parent!.ts).find((m) => m.text === 'No diagnosis: unknown cluster');
    expect(JSON.stringify(reply!.blocks)).toContain('*To map it:* add a `cluster` label naming one of `sandbox`, `other` to the alert rule');
  });
});
