// Adding an alert source: one new file (toy-source.ts) and one line in the
// table. With that line, serve answers its route (authenticated before the
// body is read, then a thread in Slack), the deployed alerts function
// dispatches to it, and serverless.yml's and the docs' regions name it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_SOURCES } from '../../lib/alerts/sources/index.ts';
import { readSecret } from '../../lib/config/secrets.ts';
import { parseConfig } from '../../lib/config/schema.ts';
import { startLocalServer, type LocalServer } from '../../lib/local/server.ts';
import { alertDispatch } from '../../lib/root/deployed-alerts.ts';
import type { Job } from '../../lib/queue/job.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import { docRegions, yamlRegions } from '../../scripts/alert-sources.ts';
import { recordingLog } from '../helpers/recording-log.ts';
import { BASE_CONFIG, ScriptedDiagnoser } from '../slack/helpers/harness.ts';
import { SlackStub } from '../slack/helpers/slack-stub.ts';
import { toySource } from './toy-source.ts';

// The one table line.
const SOURCES = [...ALERT_SOURCES, toySource];
const KEY = 'toy-key-0123456789abcdef';
const example = JSON.stringify(toySource.examples[0]!.body);

describe('a toy source added with one file and one table line', () => {
  let stub: SlackStub;
  let server: LocalServer;

  beforeAll(async () => {
    stub = await new SlackStub().start();
    server = await startLocalServer({
      config: parseConfig(BASE_CONFIG),
      signingSecret: 'toy-signing-secret',
      botToken: 'xoxb-toy',
      alertmanagerToken: 'toy-am-token-0123456789',
      alertSecrets: { 'toy-key': KEY },
      alertSources: SOURCES,
      log: recordingLog(),
      slackApiUrl: stub.apiUrl,
      port: 0,
      diagnoser: new ScriptedDiagnoser(),
      sweepIntervalMs: 0,
    });
  });
  afterAll(async () => {
    await server?.close();
    await stub?.stop();
  });

  it('serve answers its route: 401 without its key (before the body), 202 with it, and a thread in Slack', async () => {
    expect((await fetch(`${server.url}/alerts/toy`, { method: 'POST', body: example })).status).toBe(401);
    expect((await fetch(`${server.url}/alerts/toy`, { method: 'POST', headers: { 'x-toy-key': 'wrong-key-0123456789' }, body: example })).status).toBe(401);
    const res = await fetch(`${server.url}/alerts/toy`, { method: 'POST', headers: { 'x-toy-key': KEY }, body: example });
    expect(res.status).toBe(202);
    await server.queue.idle();
    const parent = stub.topLevel().find((m) => m.text.includes('billing is down'));
    expect(parent, JSON.stringify(stub.topLevel().map((m) => m.text))).toBeDefined();
    // The worker's ALERT_SOURCES lacks the toy (its line is in this test): the thread names it by its name, not its label.
    expect(JSON.stringify(parent!.blocks)).toContain('*Source:* toy');
  });

  it('the deployed dispatch routes its path to it, with its own secret', async () => {
    const enqueued: Job[] = [];
    const http = alertDispatch(SOURCES, {
      log: recordingLog(),
      intake: () => ({ queue: { enqueue: async (j: Job) => void enqueued.push(j) }, store: new MemoryStateStore() }),
      secret: (source) => readSecret(source.auth.secret, { TOY_KEY: KEY, ALERTMANAGER_TOKEN: 'unused-am-token-0123456789' }),
    });
    const event = (path: string, key: string) => ({ rawPath: path, headers: { 'x-toy-key': key }, body: example, requestContext: { http: { method: 'POST' } } });
    expect((await http(event('/alerts/toy', KEY))).statusCode).toBe(202);
    expect(enqueued.map((j) => (j.payload as { source: string }).source)).toEqual(['toy']);
    expect((await http(event('/alerts/toy', 'wrong-key-0123456789'))).statusCode).toBe(401);
    expect((await http(event('/alerts/nope', KEY))).statusCode).toBe(404);
    // A source whose secret cannot be read answers 500 (the sender retries); the others go on.
    expect((await http({ ...event('/alerts/grafana', KEY), headers: { authorization: `Bearer ${KEY}` } })).statusCode).toBe(500);
  });

  it("serverless.yml's and the docs' regions name its route and its SecureString", () => {
    const yml = yamlRegions(SOURCES);
    expect(yml.events).toContain('- httpApi: { method: POST, path: /alerts/toy }');
    expect(yml.environment).toContain('KR_TOY_KEY_PARAMETER: /kafka-responder/${sls:stage}/toy-key');
    expect(yml['iam-parameters']!.some((l) => l.includes(':parameter/kafka-responder/${sls:stage}/toy-key'))).toBe(true);
    expect(docRegions(SOURCES).table!.at(-1)).toMatch(/^\| Toy \| `toy` \| HTTP API `POST \/alerts\/toy` .*`X-Toy-Key: <key>`/);
  });
});
