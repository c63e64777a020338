// Text we did not write (alert labels, annotations, URLs, log lines from a
// broker host) reaches Slack escaped: no mention, no link, no formatting it
// did not come with. End to end through Alertmanager intake → worker → the
// Web API stub, and per renderer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlertmanagerHandler } from '../../lib/alerts/intake.ts';
import { renderTriageParent } from '../../lib/alerts/thread-messages.ts';
import type { AlertEvent } from '../../lib/alerts/event.ts';
import { renderCanRestart, renderDiagnosis } from '../../lib/diagnose/render-slack.ts';
import { renderFailure } from '../../lib/slack/blocks.ts';
import { clipEscaped, escapeMrkdwn } from '../../lib/slack/limits.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import { alertmanagerPayload } from '../alerts/fixtures/samples.ts';
import { ScriptedDiagnoser, buildHarness, finding, report } from './helpers/harness.ts';
import { SlackStub } from './helpers/slack-stub.ts';

const EVIL = '<!channel> <https://evil.example|click here>';
const ESCAPED = '&lt;!channel&gt; &lt;https://evil.example|click here&gt;';
const TOKEN = 'am-token-0123456789abcdef';

/** Every string Slack would read as mrkdwn or notification text in a message. */
function texts(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(texts);
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => (k === 'text' || typeof v === 'object' ? texts(v) : []));
  return [];
}

function expectNoControlSequences(message: unknown): void {
  for (const t of texts(message)) {
    expect(t).not.toContain('<!channel>');
    expect(t).not.toContain('<https://evil.example');
  }
}

let stub: SlackStub;
beforeAll(async () => {
  stub = await new SlackStub().start();
});
afterAll(async () => {
  await stub.stop();
});

describe('mrkdwn injection', () => {
  it('an Alertmanager cluster label "<!channel> <https://evil.example|click here>" arrives escaped in every message of the thread', async () => {
    const store = new MemoryStateStore();
    const h = buildHarness({ stub, store, diagnoser: new ScriptedDiagnoser() });
    const am = createAlertmanagerHandler({ queue: h.queue, store, log: h.log, bearerToken: TOKEN });
    const base = alertmanagerPayload('firing');
    const labels = { ...base.commonLabels, cluster: EVIL };
    const payload = {
      ...base,
      groupKey: `${base.groupKey}#evil`,
      alerts: base.alerts.map((a) => ({ ...a, labels: { ...a.labels, cluster: EVIL }, annotations: { summary: `disk full ${EVIL}` } })),
      commonLabels: labels,
      groupLabels: { ...base.groupLabels, cluster: EVIL },
      commonAnnotations: { summary: `disk full ${EVIL}` },
      externalURL: 'https://am.example/#/alerts?x=1|<!channel>',
    };
    const res = await am({ rawPath: '/alerts/alertmanager', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(payload), requestContext: { http: { method: 'POST' } } });
    expect(res.statusCode).toBe(202);
    await h.queue.idle();

    const posted = stub.callsTo('chat.postMessage').concat(stub.callsTo('chat.update'));
    // The parent and the "unknown cluster" reply: the label is not a configured cluster.
    expect(posted.length).toBeGreaterThanOrEqual(2);
    for (const call of posted) expectNoControlSequences(call.args);
    const all = JSON.stringify(posted.map((c) => c.args));
    expect(all).toContain(ESCAPED);
    // The link to Alertmanager keeps its target whole: "|" cannot start our link text early.
    expect(all).toContain('<https://am.example/#/alerts?x=1%7C&lt;!channel&gt;|open in Alertmanager>');
  });

  it('renderers escape alert, cluster and host text in blocks and fallback text', () => {
    const event: AlertEvent = {
      source: 'alertmanager', status: 'firing', groupKey: 'g', alertname: `A${EVIL}`, title: `T ${EVIL}`, summary: EVIL,
      clusterHint: EVIL, brokers: [], topics: [], count: 1, at: '2026-11-29T07:00:00Z', labels: {},
    };
    const parent = renderTriageParent(event, { cluster: null, route: { match: {}, diagnose: ['cluster'], note: EVIL } } as never, { status: 'firing', flapping: false, cycles: 0, windowMinutes: 60 });
    expectNoControlSequences(parent);
    expect(parent.text).toContain(ESCAPED);

    // A log line read on a broker host is evidence; it is shown inside a code span, escaped too.
    const diag = renderDiagnosis(report([finding(0, { title: EVIL, summary: EVIL, evidence: [{ label: EVIL, value: EVIL, source: 'server.log' }], nextActions: [EVIL] })]), { correlationId: 'kr-1' });
    expectNoControlSequences(diag);
    const restart = renderCanRestart('sandbox', { brokerId: 2, verdict: 'no', reasons: [EVIL], notes: [EVIL], wouldGoOffline: [], wouldFallBelowMinIsr: [] } as never, 'kr-1');
    expectNoControlSequences(restart);
    expectNoControlSequences(renderFailure(EVIL, EVIL, 'kr-1'));
  });

  it('escapes & < > only, and clips without cutting an entity in half', () => {
    expect(escapeMrkdwn('a & b <c> *d*')).toBe('a &amp; b &lt;c&gt; *d*');
    expect(clipEscaped('ab<cd', 4)).toBe('ab…');
    expect(clipEscaped('ab<cd', 7)).toBe('ab&lt;…');
    expect(clipEscaped('abc', 3)).toBe('abc');
  });
});
