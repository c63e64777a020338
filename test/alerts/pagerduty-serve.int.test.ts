// PagerDuty in, through `serve` as users run it (the installed bin): the
// README's environment plus PAGERDUTY_WEBHOOK_SECRETS and a configuration that
// maps the example service to the test run's sandbox, as docs/pagerduty.md
// writes it. A signed V3 incident.triggered starts a diagnosis whose thread
// links the incident; incident.resolved updates the thread; a bad signature
// is 401. The sandbox is the run's own (test/global-setup.ts).
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxConfig } from '../../lib/local/defaults.ts';
import { EXAMPLE_INCIDENT_ID, EXAMPLE_SERVICE_ID, PAGERDUTY_EXAMPLES } from '../../lib/pagerduty/examples.ts';
import { ALICE, BOB, ServeHarness, waitFor } from '../operations/serve-harness.ts';
import { SlackStub, type StubMessage } from '../slack/helpers/slack-stub.ts';

const SECRET = 'pd-webhook-secret-serve-0123456789';
const OLD_SECRET = 'pd-webhook-secret-old-9876543210';
// Ports from this run's range (KR_SANDBOX_PORT_BASE + 120..121), clear of the sandbox's and the other files'.
const BASE = Number(process.env.KR_SANDBOX_PORT_BASE ?? 29090) + 120;

const stub = new SlackStub();
const base = sandboxConfig().config;
// KR_CONFIG replaces the sandbox default: the README's approvers (KR_APPROVERS) kept in it.
const config = { ...base, approvals: { ...base.approvals, approvers: [ALICE, BOB] }, pagerduty: { incidents: { services: { [EXAMPLE_SERVICE_ID]: 'sandbox' } } } };
const serve = new ServeHarness(stub, {
  // The test is about PagerDuty: its secrets (two: a rotation under way) and the mapping.
  PAGERDUTY_WEBHOOK_SECRETS: `${SECRET}\n${OLD_SECRET}`,
  ALERTMANAGER_TOKEN: 'am-token-pagerduty-serve-0123456789',
  KR_CONFIG: JSON.stringify(config),
});
const url = `http://127.0.0.1:${BASE}`;
const all = (m: StubMessage) => `${m.text}\n${JSON.stringify(m.blocks)}\n${(m.history ?? []).join('\n')}`;

beforeAll(async () => {
  await stub.start(BASE + 1);
  serve.port = BASE;
  await serve.start();
}, 120_000);

afterAll(async () => {
  serve.stop();
  await stub.stop();
});

function post(body: unknown, secret = SECRET): Promise<Response> {
  const raw = JSON.stringify(body);
  const signature = `v1=${createHmac('sha256', secret).update(raw).digest('hex')}`;
  return fetch(`${url}/alerts/pagerduty`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-pagerduty-signature': signature }, body: raw });
}

describe('PagerDuty V3 webhooks through serve', () => {
  it('a bad signature is 401 and makes no thread', async () => {
    const res = await post(PAGERDUTY_EXAMPLES.triggered, 'not-the-secret-0123456789abcdef');
    expect(res.status).toBe(401);
    expect(stub.topLevel()).toHaveLength(0);
  });

  it('a signed incident.triggered for the mapped service starts a diagnosis of the sandbox in a thread that links the incident', async () => {
    const res = await post(PAGERDUTY_EXAMPLES.triggered);
    expect(res.status).toBe(202);
    const parent = await waitFor('the incident thread', () => stub.topLevel().find((m) => all(m).includes('UnderReplicatedPartitions &gt; 0 on orders')), 60_000, 250);
    expect(all(parent)).toContain('*Source:* PagerDuty');
    expect(all(parent)).toContain('*Cluster:* sandbox');
    expect(all(parent)).toContain(`<https://acme.pagerduty.com/incidents/${EXAMPLE_INCIDENT_ID}|PagerDuty incident #2146>`);
    // The diagnosis: its progress message in the thread, then the report in its place.
    const diagnosis = await waitFor('the diagnosis in the thread', () => stub.thread(parent.ts).find((m) => /sandbox/.test(all(m)) && !/unknown cluster/.test(m.text)), 120_000, 500);
    expect(all(diagnosis)).not.toContain("I can't tell which configured cluster");
  }, 180_000);

  it('incident.annotated is 2xx and changes nothing; incident.resolved (signed with the old secret: a rotation) updates the thread', async () => {
    expect((await post(PAGERDUTY_EXAMPLES.annotated)).status).toBe(202);
    const res = await post(PAGERDUTY_EXAMPLES.resolved, OLD_SECRET);
    expect(res.status).toBe(202);
    const parent = stub.topLevel().find((m) => all(m).includes('UnderReplicatedPartitions &gt; 0 on orders'))!;
    await waitFor('the thread resolved', () => stub.thread(parent.ts).find((m) => m.text.startsWith('Resolved at')), 60_000, 250);
    await waitFor('the parent edited to RESOLVED', () => stub.topLevel().find((m) => m.ts === parent.ts && m.text.startsWith('RESOLVED:')), 30_000, 250);
    expect(stub.topLevel()).toHaveLength(1);
  }, 120_000);
});
