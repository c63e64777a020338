// A PagerDuty incident through the worker: the thread names the mapped
// cluster, the diagnosis runs, and its findings are queued as a note on the
// incident (once per job); an unknown source name in the config is refused
// by the composition root.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createHttpAlertHandler } from '../../lib/alerts/intake.ts';
import { pagerdutySource } from '../../lib/alerts/sources/pagerduty.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { deliveryId, outboxRecord } from '../../lib/pagerduty/deliveries.ts';
import { EXAMPLE_INCIDENT_ID, EXAMPLE_SERVICE_ID, PAGERDUTY_EXAMPLES } from '../../lib/pagerduty/examples.ts';
import { buildWorker } from '../../lib/root/worker.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import { BASE_CONFIG, ScriptedDiagnoser, buildHarness } from '../slack/helpers/harness.ts';
import { useSlackStubAndDynalite } from '../slack/helpers/slack-and-dynalite.ts';

const SECRET = 'pd-webhook-secret-triage-0123456789';
const CONFIG = { ...BASE_CONFIG, pagerduty: { incidents: { services: { [EXAMPLE_SERVICE_ID]: 'sandbox' } }, notes: { fromEmail: 'kafka-bot@example.com' } } };

describe('a PagerDuty incident in the worker', () => {
  const env = useSlackStubAndDynalite();

  it('diagnoses the mapped cluster, links the incident, and queues the findings as a note on the incident', async () => {
    const diagnoser = new ScriptedDiagnoser();
    const h = buildHarness({ stub: env.stub, store: env.db.store, diagnoser, config: CONFIG });
    const intake = createHttpAlertHandler(pagerdutySource, { queue: h.queue, store: new MemoryStateStore(), log: h.log, secret: SECRET });
    const body = JSON.stringify(PAGERDUTY_EXAMPLES.triggered);
    const signature = `v1=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const res = await intake({ rawPath: '/alerts/pagerduty', headers: { 'x-pagerduty-signature': signature }, body, requestContext: { http: { method: 'POST' } } });
    expect(res.statusCode).toBe(202);
    const { jobId } = JSON.parse(res.body) as { jobId: string };
    await h.queue.idle();
    expect(diagnoser.requests.map((r) => r.cluster.name)).toEqual(['sandbox']);
    const parent = env.stub.topLevel().find((m) => m.text.includes('#2146 UnderReplicatedPartitions'))!;
    expect(JSON.stringify(parent.blocks)).toContain(`<https://acme.pagerduty.com/incidents/${EXAMPLE_INCIDENT_ID}|PagerDuty incident #2146>`);
    const note = await outboxRecord(h.worker.store, deliveryId(`note:${EXAMPLE_INCIDENT_ID}:${jobId}`));
    expect(note?.delivery).toMatchObject({ target: 'incident-note', incidentId: EXAMPLE_INCIDENT_ID });
  });
});

describe('source names in the config', () => {
  it('a name no source of the table has is refused when the worker is built', () => {
    const config = parseConfig({ ...BASE_CONFIG, alerts: { clusterLabels: { grafanna: ['kafka_cluster'] } } });
    expect(() => buildWorker(config, { store: new MemoryStateStore(), log: recordingLog() } as never, { diagnoser: new ScriptedDiagnoser() } as never)).toThrow(/no alert source named grafanna/);
    expect(parseConfig({ ...BASE_CONFIG, alerts: { routes: [{ match: { source: 'pagerduty' }, diagnose: ['cluster'] }] } }).alerts.routes[0]!.match.source).toBe('pagerduty');
  });
});
