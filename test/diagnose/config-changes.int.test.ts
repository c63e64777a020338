// "Changed in the last hour" on the real sandbox: a diagnosis keeps its view
// (the bot's cluster history), then a broker config and a topic config are
// altered with Kafka's own kafka-configs.sh and a broker is restarted; the
// next diagnosis names all three, and its Slack message says them.
import { afterAll, describe, expect, it } from 'vitest';
import { resolveClusterTarget } from '../../lib/diagnose/cli-support.ts';
import { sandboxTarget } from '../../lib/cli/sandbox-target.ts';
import { stateClusterHistory } from '../../lib/diagnose/cluster-history-store.ts';
import { renderDiagnosis } from '../../lib/diagnose/render-slack.ts';
import { diagnosisInputFor, runDiagnosis } from '../../lib/diagnose/run.ts';
import type { ClusterChange } from '../../lib/diagnose/what-changed.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import { createTopic, kafkaTool, waitFor, withAdmin } from '../../sandbox/client.ts';
import { hasSandbox, testSandbox } from '../sandbox/helpers.ts';

const TOPIC = 'what-changed-configs';
const ALTERED = 2;
const RESTARTED = 3;

describe.skipIf(!hasSandbox())('what changed in the last hour, on the sandbox', { timeout: 300_000 }, () => {
  const sandbox = testSandbox();
  const configs = (args: string[]) => kafkaTool(sandbox.binDir, 'kafka-configs.sh', ['--bootstrap-server', sandbox.bootstrapServers, '--alter', ...args]);

  afterAll(async () => {
    if (!hasSandbox()) return;
    await configs(['--entity-type', 'brokers', '--entity-name', String(ALTERED), '--delete-config', 'message.max.bytes']).catch(() => {});
    await withAdmin(sandbox.bootstrapServers, (a) => a.deleteTopics({ topics: [TOPIC] })).catch(() => {});
  });

  it('kafka-configs.sh --alter on a broker and a topic, and a broker restart: the next diagnosis names each, and says so in the thread', async () => {
    await sandbox.up();
    await withAdmin(sandbox.bootstrapServers, async (admin) => {
      if (!(await admin.listTopics()).includes(TOPIC)) await createTopic(admin, TOPIC, { assignment: [[1, 2, 3], [2, 3, 1], [3, 1, 2]] });
    });
    const store = new MemoryStateStore();
    const history = stateClusterHistory(store, 'sandbox');
    const target = await resolveClusterTarget({}, process.env, sandboxTarget);
    const diagnose = () => runDiagnosis({ ...diagnosisInputFor(target), clusterHistory: history });

    const t0 = Date.now();
    const first = await diagnose();
    const tFirst = Date.now() - t0;
    expect(first.skippedChecks.filter((s) => s.startsWith('Configs could not be read'))).toEqual([]);
    expect((first.changes ?? []).filter((c) => c.code.endsWith('config-changed'))).toEqual([]);

    await configs(['--entity-type', 'brokers', '--entity-name', String(ALTERED), '--add-config', 'message.max.bytes=2000000']);
    await configs(['--entity-type', 'topics', '--entity-name', TOPIC, '--add-config', 'retention.ms=3600000']);
    const stoppedAt = Date.now();
    await sandbox.stop(RESTARTED);
    await sandbox.up();
    await waitFor(`broker ${RESTARTED} back in the metadata`, () => withAdmin(sandbox.bootstrapServers, async (a) => (await a.describeCluster()).brokers.some((b) => b.nodeId === RESTARTED)), 60_000);

    const t1 = Date.now();
    const second = await diagnose();
    const tSecond = Date.now() - t1;
    const changes = second.changes ?? [];
    const of = <C extends ClusterChange['code']>(code: C) => changes.filter((c): c is Extract<ClusterChange, { code: C }> => c.code === code);
    expect(of('broker-config-changed')).toEqual([expect.objectContaining({ broker: ALTERED, setting: 'message.max.bytes', from: null, to: '2000000' })]);
    expect(of('topic-config-changed')).toEqual([expect.objectContaining({ topic: TOPIC, setting: 'retention.ms', from: null, to: '3600000' })]);
    // (A sandbox brought up within the hour also shows the earlier start of each broker.)
    const restarted = of('broker-started').filter((c) => c.broker === RESTARTED && Date.parse(c.at) >= stoppedAt - 1000);
    expect(restarted, JSON.stringify(changes)).toHaveLength(1);

    // KRaft (the default line): Metadata names a random broker as controller each time; never a "controller change".
    if (sandbox.settings.mode === 'kraft') expect(of('controller-changed')).toEqual([]);

    const text = JSON.stringify(renderDiagnosis(second, { correlationId: 'c' }));
    expect(text).toContain(`broker ${ALTERED} config: message.max.bytes set to 2000000`);
    expect(text).toContain(`topic ${TOPIC}: retention.ms set to 3600000`);
    expect(text).toContain(`broker ${RESTARTED} (re)started`);
    console.log(`[what-changed] diagnoses with the config view: ${tFirst} ms, ${tSecond} ms; ${changes.length} changes: ${changes.map((c) => c.code).join(', ')}`);
  });
});
