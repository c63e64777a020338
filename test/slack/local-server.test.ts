// The local server: real HTTP requests into the same handlers, worker
// in-process, Slack calls going to SLACK_API_URL (a stub here).
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordingLog } from '../helpers/recording-log.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { startLocalServer, type LocalServer } from '../../lib/local/server.ts';
import { BASE_CONFIG, ScriptedDiagnoser } from './helpers/harness.ts';
import { SIGNING_SECRET, slashBody } from './helpers/signed.ts';
import { SlackStub } from './helpers/slack-stub.ts';
import { signSlackRequest } from '../../lib/slack/verify.ts';
import { alertmanagerPayload, cloudwatchAlarm } from '../alerts/fixtures/samples.ts';

const AM_TOKEN = 'local-am-token-0123456789';
let stub: SlackStub;
let server: LocalServer;
const log = recordingLog();

beforeAll(async () => {
  stub = await new SlackStub().start();
  server = await startLocalServer({
    config: parseConfig(BASE_CONFIG),
    signingSecret: SIGNING_SECRET,
    botToken: 'xoxb-local',
    alertmanagerToken: AM_TOKEN,
    log,
    slackApiUrl: stub.apiUrl,
    port: 0,
    diagnoser: new ScriptedDiagnoser(),
    // Posts one after another, without Slack's 1 s between them (pacing is delivery.test.ts's).
    slackDelivery: { postIntervalMs: 0 },
  });
});
afterAll(async () => {
  await server.close();
  await stub.stop();
});

function signedPost(path: string, body: string, contentType = 'application/x-www-form-urlencoded') {
  const ts = Math.floor(Date.now() / 1000);
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': contentType, 'x-slack-request-timestamp': String(ts), 'x-slack-signature': signSlackRequest(SIGNING_SECRET, ts, body) },
    body,
  });
}

describe('local server', () => {
  it('serves /healthz and 404s unknown routes', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/nope`, { method: 'POST' })).status).toBe(404);
  });

  it('runs a slash command through the Slack handler and the in-process worker', async () => {
    const res = await signedPost('/slack/events', slashBody({ text: 'diagnose sandbox', responseUrl: stub.responseUrl() }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { text: string }).text).toMatch(/Diagnosing \*sandbox\*/);
    await server.queue.idle();
    const [parent] = stub.topLevel('C0OPS');
    expect(parent!.text).toBe('1 finding on sandbox: 1 critical');
    expect(stub.thread(parent!.ts)).toHaveLength(1);
  });

  it('refuses a replay, also one sent at the same moment as the original (replay marks beside the in-process dynalite)', async () => {
    const ts = Math.floor(Date.now() / 1000);
    const body = slashBody({ text: 'help', user: 'U0REPLAY', responseUrl: stub.responseUrl('replay') });
    const send = () =>
      fetch(`${server.url}/slack/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(ts), 'x-slack-signature': signSlackRequest(SIGNING_SECRET, ts, body) },
        body,
      });
    const statuses = (await Promise.all([send(), send(), send()])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 401, 401]);
    const again = await send();
    expect(again.status).toBe(401);
    expect(await again.text()).toBe('replayed request');
  });

  it('rejects an unsigned Slack request', async () => {
    const res = await fetch(`${server.url}/slack/events`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: slashBody({ text: 'help' }) });
    expect(res.status).toBe(401);
  });

  it('takes Alertmanager webhooks with the bearer token only', async () => {
    const body = JSON.stringify({ ...alertmanagerPayload('firing'), groupKey: 'local-group' });
    expect((await fetch(`${server.url}/alerts/alertmanager`, { method: 'POST', body })).status).toBe(401);
    const ok = await fetch(`${server.url}/alerts/alertmanager`, { method: 'POST', headers: { authorization: `Bearer ${AM_TOKEN}` }, body });
    expect(ok.status).toBe(202);
    await server.queue.idle();
    expect(stub.topLevel('C0INCIDENT').some((m) => m.text.startsWith('FIRING: KafkaUnderReplicatedPartitions'))).toBe(true);
  });

  it.each(['/alerts/alertmanager', '/alerts/sns'])('%s answers an unauthenticated client before reading its body', async (path) => {
    // Headers and the first megabyte of a body that never ends: only a check made before the body is read can answer.
    const answer = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(10 * 1024 * 1024), authorization: 'Bearer wrong-token-0123456789' } });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.write(Buffer.alloc(1024 * 1024, 0x20));
    });
    expect(answer).toBe(401);
  });

  it('refuses an alert body over the limit from its declared length, before reading it', async () => {
    const answer = await new Promise<number>((resolve, reject) => {
      const req = request(`${server.url}/alerts/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(11 * 1024 * 1024), authorization: `Bearer ${AM_TOKEN}` } });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', reject);
      req.write('{');
    });
    expect(answer).toBe(413);
  });

  it('simulates SNS delivery of a bare CloudWatch alarm with the bearer token only, and 400s garbage', async () => {
    const alarm = cloudwatchAlarm('ALARM', 'UnderMinIsrPartitionCount', { StateChangeTime: new Date().toISOString() });
    const before = stub.calls.length;
    expect((await fetch(`${server.url}/alerts/sns`, { method: 'POST', body: JSON.stringify(alarm) })).status).toBe(401);
    const wrong = await fetch(`${server.url}/alerts/sns`, { method: 'POST', headers: { authorization: 'Bearer not-the-token' }, body: JSON.stringify(alarm) });
    expect(wrong.status).toBe(401);
    await server.queue.idle();
    expect(stub.calls.length).toBe(before);
    const res = await fetch(`${server.url}/alerts/sns`, { method: 'POST', headers: { authorization: `Bearer ${AM_TOKEN}` }, body: JSON.stringify(alarm) });
    expect(res.status).toBe(202);
    await server.queue.idle();
    expect(stub.topLevel('C0INCIDENT').some((m) => m.text === 'FIRING: prod-msk-UnderMinIsrPartitionCount on prod-msk')).toBe(true);
    const bad = await fetch(`${server.url}/alerts/sns`, { method: 'POST', headers: { authorization: `Bearer ${AM_TOKEN}` }, body: '{"AlarmName": 1}' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { rejected: { reason: string }[] }).rejected[0]!.reason).toMatch(/not a CloudWatch alarm/);
  });
});

describe('kafka-responder serve (one command)', () => {
  let child: ChildProcess | undefined;
  afterAll(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('starts the server with the sandbox defaults and SLACK_API_URL honoured, and stops on SIGTERM', async () => {
    stub.reset();
    child = spawn(process.execPath, ['--import', 'tsx', '-e', "const m = await import('./lib/cli/serve.ts'); process.exitCode = await m.run(['--port', '0']);"], {
      cwd: process.cwd(),
      env: { ...process.env, SLACK_SIGNING_SECRET: SIGNING_SECRET, SLACK_BOT_TOKEN: 'xoxb-local', SLACK_API_URL: stub.apiUrl, KR_CONFIG: '', KR_CONFIG_FILE: '', KR_SANDBOX_HOME: '/nonexistent/kr-sandbox', KR_SANDBOX_PORT_BASE: '21990', KAFKA_BOOTSTRAP_SERVERS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${stderr}`)), 30_000);
      child!.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(stderr);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
    });
    expect(stderr).toMatch(/using the local sandbox cluster with the local executor/);
    expect(stderr).toMatch(/clusters: sandbox/);
    const ts = Math.floor(Date.now() / 1000);
    const body = slashBody({ text: 'help', user: 'U0ANYONE' });
    const res = await fetch(`${url}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(ts), 'x-slack-signature': signSlackRequest(SIGNING_SECRET, ts, body) },
      body,
    });
    expect(res.status).toBe(200);
    // No cluster is running at that sandbox: the worker must still report back through the Slack stub.
    const body2 = slashBody({ text: 'diagnose', user: 'U0ANYONE', channel: 'C0LOCAL' });
    const res2 = await fetch(`${url}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(ts), 'x-slack-signature': signSlackRequest(SIGNING_SECRET, ts, body2) },
      body: body2,
    });
    expect(res2.status).toBe(200);
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !stub.topLevel('C0LOCAL').some((m) => /failed/.test(m.text))) await new Promise((r) => setTimeout(r, 25));
    // Nothing listens on that sandbox's ports: the real diagnosis fails fast and says so in the channel.
    expect(stub.topLevel('C0LOCAL')[0]?.text).toMatch(/^Diagnosis of sandbox failed: /);
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});

describe('local server: operations with approvals on an in-process dynalite', () => {
  it.each([
    ['approvers are configured', { approvers: ['U0ALICE', 'U0BOB'] }],
    // The group's members come from Slack (usergroups.users.list), as in the deployed worker.
    ['only an approver user group is configured', { approvers: [], approverGroup: 'S0APPROVE' }],
  ])('posts a plan for approval when %s and no approval service is given', async (_case, approvalsConfig) => {
    const opsStub = await new SlackStub().start();
    opsStub.userGroups.set('S0APPROVE', ['U0BOB', 'U0CAROL']);
    const planned: string[] = [];
    const local = await startLocalServer({
      config: parseConfig({ ...BASE_CONFIG, approvals: approvalsConfig }),
      signingSecret: SIGNING_SECRET,
      botToken: 'xoxb-local',
      alertmanagerToken: AM_TOKEN,
      log,
      slackApiUrl: opsStub.apiUrl,
      port: 0,
      diagnoser: new ScriptedDiagnoser(),
      slackDelivery: { postIntervalMs: 0 },
      operations: {
        async plan(_cluster, request) {
          planned.push(request.kind);
          return {
            ok: true,
            plan: {
              id: 'p1', kind: 'drain-broker', title: 'drain broker 3', description: 'scripted', createdAt: new Date().toISOString(), params: { broker: 3, partial: false, throttleBytesPerSec: 1_048_576 },
              fingerprint: 'a'.repeat(64), preconditions: {}, steps: [], impact: { summary: 'nothing', risk: 'low', partitionsAffected: 0 }, warnings: [], dryRun: true,
            },
          };
        },
        io() {
          throw new Error('not expected');
        },
      },
    });
    try {
      const body = slashBody({ text: 'drain 3', responseUrl: opsStub.responseUrl() });
      const ts = Math.floor(Date.now() / 1000);
      const res = await fetch(`${local.url}/slack/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': String(ts), 'x-slack-signature': signSlackRequest(SIGNING_SECRET, ts, body) },
        body,
      });
      expect(((await res.json()) as { text: string }).text).toMatch(/Planning: drain broker 3/);
      await local.queue.idle();
      expect(planned).toEqual(['drain-broker']);
      // Stored for approval (conditional writes on the in-process dynalite) and posted with its buttons.
      const plan = opsStub.topLevel('C0OPS').at(-1)!;
      // The requester (U0ALICE) is an approver, yet asking is not approving: 0 of 2 until people click.
      expect(plan.text).toMatch(/^REQUESTED: drain broker 3 \(0 of 2 approvals\)/);
      expect(JSON.stringify(plan.blocks)).toContain('"action_id":"ops:approve"');
    } finally {
      await local.close();
      await opsStub.stop();
    }
  });
});
