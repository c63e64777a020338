// The whole path on a real cluster: a signed `/kafka diagnose` into the Slack
// handler, the worker running the real diagnosis (lib/diagnose/run.ts with the
// local executor on the sandbox's broker host directories), and a findings
// thread at the Slack stub, during a reproduced incident (replication factor
// 1 topic whose broker is down: incident 3).
//
// Needs the Kafka sandbox (test/global-setup.ts starts it; or
// `npx kafka-responder sandbox up`). It uses KR_SANDBOX_HOME /
// KR_SANDBOX_PORT_BASE like the sandbox does, and is skipped when
// the run has no sandbox (KR_SKIP_SANDBOX=1).
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RestartAssessment } from '../../lib/diagnose/can-restart.ts';
import type { DiagnosisReport } from '../../lib/diagnose/types.ts';
import { hasSandbox } from '../sandbox/helpers.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDefaultDiagnoser } from '../../lib/diagnose/diagnoser.ts';
import { executorFactory } from '../../lib/hosts/executors.ts';
import { startDynalite, type DynaliteHandle } from '../alerts/helpers/dynalite.ts';
import { sandboxConfig } from '../../lib/local/defaults.ts';
import { buildHarness, type Harness } from './helpers/harness.ts';
import { slashEvent } from './helpers/signed.ts';
import { SlackStub } from './helpers/slack-stub.ts';
import { scratchDir } from '../helpers/scratch.ts';

/** The installed CLI's output; throws (with its stderr) on an exit code not in `ok`. */
function kafkaResponder(args: string[], ok: number[]): string {
  const r = spawnSync(process.execPath, ['bin/kafka-responder.js', ...args], { cwd: process.cwd(), env: { ...process.env, KR_CONFIG_FILE: '' }, encoding: 'utf8', timeout: 120_000 });
  if (r.status === null || !ok.includes(r.status)) throw new Error(`kafka-responder ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

function sandboxCli(...args: string[]): string {
  return execFileSync(process.execPath, ['bin/kafka-responder.js', 'sandbox', ...args], { cwd: process.cwd(), env: process.env, encoding: 'utf8', timeout: 300_000 });
}

// The run's global setup brought a sandbox up (a scenario restarts whatever an earlier file stopped):
// when it did, these tests run, and fail rather than skip if the cluster misbehaves.
const up = hasSandbox();

describe.skipIf(!up)('/kafka diagnose on the sandbox during incident 3 (RF 1 topic, broker down)', () => {
  let stub: SlackStub;
  let h: Harness;
  let db: DynaliteHandle;
  let expected: { unavailablePartitions?: string[] };
  let stoppedBroker: number;
  let configFile: string;

  beforeAll(async () => {
    stub = await new SlackStub().start();
    const scenario = JSON.parse(sandboxCli('scenario', 'rf1-broker-down')) as { expect: { unavailablePartitions?: string[] }; brokers: { stopped: number[]; killed: number[] } };
    expected = scenario.expect;
    stoppedBroker = [...scenario.brokers.stopped, ...scenario.brokers.killed][0]!;
    const { config } = sandboxConfig({ ...process.env, KR_SLACK_USERS: 'U0ALICE', KR_INCIDENT_CHANNEL: 'C0INCIDENT' });
    db = await startDynalite();
    h = buildHarness({ stub, store: db.store, diagnoser: createDefaultDiagnoser(executorFactory()), config });
    configFile = join(scratchDir('kr-config'), 'kafka-responder.json');
    writeFileSync(configFile, JSON.stringify(config, null, 2));
  }, 300_000);

  afterAll(async () => {
    await stub?.stop();
    await db?.close();
    // Leave the shared cluster as the next test file expects it.
    if (up) sandboxCli('scenario', 'healthy');
  }, 300_000);

  it('posts a findings thread naming the offline partitions and the broker that holds them', async () => {
    const res = await h.handler(slashEvent({ text: 'diagnose sandbox', responseUrl: stub.responseUrl() }));
    expect(res.statusCode).toBe(200);
    await h.queue.idle();
    const [parent] = stub.topLevel('C0OPS');
    expect(parent, 'progress message posted').toBeDefined();
    // The progress message was edited as each host answered.
    expect(parent!.history.some((t) => /\d\/\d+ hosts probed/.test(t)), parent!.history.join(' | ')).toBe(true);
    expect(parent!.text).toMatch(/finding/);
    const thread = stub.thread(parent!.ts);
    expect(thread.length).toBeGreaterThanOrEqual(1);
    const posted = JSON.stringify(thread.map((m) => m.blocks)) + stub.uploads.map((u) => u.content).join('\n');
    expect(expected.unavailablePartitions?.length).toBeGreaterThan(0);
    for (const tp of expected.unavailablePartitions!) {
      const [topic, partition] = tp.split(':');
      expect(posted, `offline partition ${tp} reported`).toContain(`${topic}-${partition}`);
    }
    expect(posted).toContain('/kafka runbook');
    expect(posted).toContain(String(stoppedBroker));
  });

  it('answers can-restart for a broker whose partitions have no other replica', async () => {
    const liveBroker = [1, 2, 3].find((b) => b !== stoppedBroker)!;
    const res = await h.handler(slashEvent({ text: `can-restart ${liveBroker}`, responseUrl: stub.responseUrl('cr') }));
    expect(res.statusCode).toBe(200);
    await h.queue.idle();
    const msg = stub.topLevel('C0OPS').find((m) => m.text.startsWith(`Broker ${liveBroker}:`));
    expect(msg, 'assessment posted').toBeDefined();

    // The CLI, given the bot's own config file, gives the same answer for the same cluster state.
    const cli = JSON.parse(kafkaResponder(['can-restart', String(liveBroker), '--config', configFile, '--format', 'json'], [0, 3])) as RestartAssessment;
    expect(cli.verdict).toBe('no');
    expect(msg!.text).toBe(`Broker ${liveBroker}: No: ${cli.reasons[0]}`);
    const slackBlocks = JSON.stringify(msg!.blocks);
    expect(cli.wouldGoOffline.length).toBeGreaterThan(0);
    for (const p of cli.wouldGoOffline) expect(slackBlocks).toContain(`${p.topic}-${p.partition} (offline)`);
    // Both looked at the broker's host: neither says "no host access".
    expect(cli.recovering).toBe(false);
    expect(slackBlocks).not.toContain('no host access');
  });

  it('`diagnose --config FILE` reads the bot config, probes the hosts through the executor it names, and prints json or markdown', async () => {
    const report = JSON.parse(kafkaResponder(['diagnose', '--config', configFile, '--cluster', 'sandbox', '--format', 'json'], [3])) as DiagnosisReport;
    expect(report.cluster).toBe('sandbox');
    expect(report.skippedChecks).toEqual([]);
    const offline = report.findings.filter((f) => f.kind === 'offline-partition').flatMap((f) => f.affected.partitions.map((p) => `${p.topic}:${p.partition}`));
    for (const tp of expected.unavailablePartitions!) expect(offline).toContain(tp);
    const markdown = kafkaResponder(['diagnose', '--config', configFile, '--format', 'markdown'], [3]);
    expect(markdown).toMatch(/^## Kafka diagnosis: sandbox\n/);
    expect(markdown).toContain('| critical |');
    expect(markdown).toContain('runbooks/offline-partition.md');
    // A cluster the file does not have is a clear error, not a guess.
    expect(() => kafkaResponder(['diagnose', '--config', configFile, '--cluster', 'nope'], [0])).toThrow(/no cluster "nope"/);
  });
});
