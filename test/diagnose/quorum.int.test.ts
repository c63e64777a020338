// The KRaft controller quorum in the diagnosis, on the real sandbox (4.x: three
// controllers, a dynamic quorum), as users run it: the installed bin
// (`diagnose --json`, `audit --format json`, the sandbox defaults), compared
// with Kafka's own kafka-metadata-quorum.sh --bootstrap-controller.
//   - whole: no quorum finding; the audit names no static quorum, no unsafe size;
//   - a follower stopped: quorum-at-risk naming it, its log end and last fetch as the tool's;
//   - two stopped: quorum-lost, what no longer works, brokers serving (and how long it took);
//   - both back: the findings clear;
//   - the active controller killed (controller-failover scenario): "what changed"
//     (the library with a kept history: the one-shot CLI keeps none) names the failover.
// Every controller runs again when the file ends, the quorum whole.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxTarget } from '../../lib/cli/sandbox-target.ts';
import { resolveClusterTarget } from '../../lib/diagnose/cli-support.ts';
import { stateClusterHistory } from '../../lib/diagnose/cluster-history-store.ts';
import { changeLines } from '../../lib/diagnose/render-changes.ts';
import { diagnosisInputFor, runDiagnosis } from '../../lib/diagnose/run.ts';
import type { DiagnosisReport, Finding } from '../../lib/diagnose/types.ts';
import { MemoryStateStore } from '../../lib/state/state-store.ts';
import { kafkaTool, waitFor } from '../../sandbox/client.ts';
import { binDir, controllerBootstrapServers, controllerIds, hasControllerQuorum, sandboxSettings } from '../../sandbox/layout.ts';
import { describeQuorumResult, type QuorumStatus } from '../../sandbox/quorum.ts';
import { hasSandbox, testSandbox } from '../sandbox/helpers.ts';

const settings = sandboxSettings();
const up = hasSandbox() && hasControllerQuorum(settings);
const QUORUM_KINDS = ['quorum-at-risk', 'quorum-lost', 'metadata-log-lag'];
const toolProps = join(tmpdir(), `kr-quorum-int-${process.pid}.properties`);

/** The installed bin on the run's sandbox: its output and wall time, when it exits with one of `ok`. */
function kafkaResponder(args: string[], ok: number[]): { stdout: string; seconds: number } {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['bin/kafka-responder.js', ...args], { cwd: process.cwd(), env: { ...process.env, KR_CONFIG_FILE: '' }, encoding: 'utf8', timeout: 120_000 });
  if (r.status === null || !ok.includes(r.status)) throw new Error(`kafka-responder ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { stdout: r.stdout, seconds: (Date.now() - t0) / 1000 };
}
const diagnoseCli = () => {
  const { stdout, seconds } = kafkaResponder(['diagnose', '--json'], [0, 3]);
  return { report: JSON.parse(stdout) as DiagnosisReport, seconds };
};
const quorumFindings = (r: DiagnosisReport): Finding[] => r.findings.filter((f) => QUORUM_KINDS.includes(f.kind));

/** Diagnoses until `done` holds (bounded), the last one returned either way. */
async function diagnoseUntil(what: string, done: (r: DiagnosisReport) => boolean, boundMs: number) {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const d = diagnoseCli();
    if (done(d.report)) return d;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${boundMs / 1000} s; findings: ${d.report.findings.map((f) => `${f.kind}: ${f.title}`).join(' | ')}`);
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

interface ReplicationRow {
  id: number;
  logEndOffset: number;
  lag: number;
  lastFetchTimestamp: number;
  status: string;
}
/** kafka-metadata-quorum.sh describe --replication, asked of the controllers, and when it answered (our clock). */
async function toolReplication(): Promise<{ rows: ReplicationRow[]; at: number }> {
  const out = await kafkaTool(binDir(settings), 'kafka-metadata-quorum.sh', ['--bootstrap-controller', controllerBootstrapServers(settings), '--command-config', toolProps, 'describe', '--replication'], 60_000);
  const rows = out
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => /^\d+$/.test(c[0] ?? '') && c.length >= 7)
    .map((c) => ({ id: Number(c[0]), logEndOffset: Number(c[2]), lag: Number(c[3]), lastFetchTimestamp: Number(c[4]), status: c[6]! }));
  return { rows, at: Date.now() };
}
async function toolLeader(what: string, other?: (s: QuorumStatus) => boolean): Promise<QuorumStatus> {
  return waitFor(what, async () => {
    const r = await describeQuorumResult(settings);
    return 'status' in r && r.status.leaderId >= 0 && (!other || other(r.status)) ? r.status : null;
  }, 120_000);
}
const whole = () => toolLeader('a leader and every voter caught up', (s) => s.voters.length === 3 && s.maxFollowerLag < 100);

describe.skipIf(!up)('the controller quorum in the diagnosis (sandbox, three controllers)', () => {
  const sandbox = testSandbox();

  beforeAll(async () => {
    writeFileSync(toolProps, 'request.timeout.ms=5000\ndefault.api.timeout.ms=12000\n');
    await sandbox.up();
    // A run before this one may have left controllers down.
    for (const id of controllerIds(settings)) await sandbox.start(id).catch(() => undefined);
    await whole();
  }, 300_000);

  afterAll(async () => {
    for (const id of controllerIds(settings)) await sandbox.start(id).catch((err: unknown) => console.warn(`[quorum] start ${id}: ${String(err)}`));
    await whole().catch((err: unknown) => console.warn(String(err)));
  }, 300_000);

  it('whole: no quorum finding, and the audit names no static quorum and no unsafe size', async () => {
    const { report, seconds } = await diagnoseUntil('no quorum finding', (r) => quorumFindings(r).length === 0, 60_000);
    console.log(`[quorum] whole quorum: diagnose --json took ${seconds.toFixed(2)} s (wall), ${report.findings.length} findings`);
    expect(report.skippedChecks.filter((s) => s.startsWith('Quorum checks'))).toEqual([]);
    const audit = JSON.parse(kafkaResponder(['audit', '--format', 'json'], [0, 3]).stdout) as { findings: Finding[] };
    expect(audit.findings.map((f) => f.kind)).not.toContain('quorum-static-voters');
    expect(audit.findings.map((f) => f.kind)).not.toContain('quorum-size-unsafe');
  }, 180_000);

  it('one follower stopped: quorum-at-risk names it, with the log end and last fetch Kafka\'s tool shows; two: quorum-lost; both back: cleared', async () => {
    const before = await toolLeader('a quorum leader');
    const [first, second] = before.voters.map((v) => v.id).filter((id) => id !== before.leaderId) as [number, number];
    await sandbox.stop(first);

    const atRisk = await diagnoseUntil(`quorum-at-risk naming controller ${first}`, (r) => r.findings.some((f) => f.kind === 'quorum-at-risk'), 90_000);
    const tool = await toolReplication();
    const finding = atRisk.report.findings.find((f) => f.kind === 'quorum-at-risk')!;
    console.log(`[quorum] ${first} stopped: ${finding.title} (${atRisk.seconds.toFixed(2)} s)`);
    expect(finding.affected.controllers).toEqual([first]);
    expect(finding.title).toMatch(new RegExp(`one failure from losing its majority: controller ${first} is not following`));
    const ours = finding.evidence.find((e) => e.label === `controller ${first}`)!.value;
    const row = tool.rows.find((r) => r.id === first)!;
    console.log(`[quorum] ours: ${ours}; kafka-metadata-quorum.sh: LogEndOffset ${row.logEndOffset}, Lag ${row.lag}, LastFetchTimestamp ${row.lastFetchTimestamp} (${((tool.at - row.lastFetchTimestamp) / 1000).toFixed(1)} s before the tool answered), ${row.status}`);
    expect(row.status).toBe('Follower');
    // A stopped voter's log end stays where it stopped: the same number in both.
    expect(Number(/log end (\d+)/.exec(ours)?.[1])).toBe(row.logEndOffset);
    // The last fetch, on the leader's clock: the tool's timestamp, seen a few seconds apart.
    const ourAge = Number(/last fetch (\d+) s ago/.exec(ours)?.[1]);
    const toolAgeAtDiagnosis = (Date.parse(atRisk.report.startedAt) - row.lastFetchTimestamp) / 1000;
    expect(Math.abs(ourAge - toolAgeAtDiagnosis)).toBeLessThanOrEqual(5);
    expect(row.lag).toBeGreaterThanOrEqual(0);

    await sandbox.stop(second);
    const lost = await diagnoseUntil('quorum-lost', (r) => r.findings.some((f) => f.kind === 'quorum-lost'), 120_000);
    const toolLost = await describeQuorumResult(settings);
    const lostFinding = lost.report.findings.find((f) => f.kind === 'quorum-lost')!;
    console.log(`[quorum] ${first} and ${second} stopped: kafka-metadata-quorum.sh: ${'error' in toolLost ? toolLost.error : 'a leader!'}; diagnose --json: ${lostFinding.title} in ${lost.seconds.toFixed(2)} s (wall), report ${lost.report.durationMs} ms`);
    expect('error' in toolLost).toBe(true);
    expect(lostFinding.summary).toMatch(/Brokers keep serving reads and writes/);
    expect(lostFinding.summary).toMatch(/no leader election/);
    expect(lostFinding.summary).toMatch(/no reassignment, no topic creation or deletion, no config or ACL change/);
    expect(lostFinding.evidence.find((e) => e.label === 'brokers still serving')?.value).toMatch(/^3 brokers listed/);
    expect(quorumFindings(lost.report).map((f) => f.kind)).toEqual(['quorum-lost']);
    // Measured again, now that the quorum is known lost (one diagnosis, as a user runs it).
    const again = diagnoseCli();
    console.log(`[quorum] diagnose --json with no quorum leader: ${again.seconds.toFixed(2)} s (wall); snapshot errors: ${JSON.stringify(again.report.snapshotErrors)}`);

    await sandbox.start(first);
    await sandbox.start(second);
    const t0 = Date.now();
    const cleared = await diagnoseUntil('the quorum findings cleared', (r) => quorumFindings(r).length === 0, 120_000);
    console.log(`[quorum] both back: quorum findings cleared ${((Date.now() - t0) / 1000).toFixed(1)} s after the starts returned (${cleared.seconds.toFixed(2)} s a diagnosis)`);
    await whole();
  }, 600_000);

  it('the active controller killed: "what changed" names the failover, old and new leader with their epochs', async () => {
    const history = stateClusterHistory(new MemoryStateStore(), 'sandbox');
    const target = await resolveClusterTarget({}, process.env, sandboxTarget);
    const diagnose = () => runDiagnosis({ ...diagnosisInputFor(target), clusterHistory: history });
    await diagnose();
    const { stdout } = kafkaResponder(['sandbox', 'scenario', 'controller-failover'], [0]);
    const details = (JSON.parse(stdout) as { details: { oldLeader: { id: number; epoch: number }; newLeader: { id: number; epoch: number } } }).details;
    const after = await waitFor('a diagnosis naming the failover', async () => {
      const r = await diagnose();
      return (r.changes ?? []).some((c) => c.code === 'quorum-leader-changed' && c.to !== null) ? r : null;
    }, 90_000);
    const change = (after.changes ?? []).find((c) => c.code === 'quorum-leader-changed' && c.to !== null)!;
    console.log(`[quorum] failover: scenario ${JSON.stringify(details)}; what changed: ${changeLines([change]).join('')}`);
    expect(change).toMatchObject({ from: details.oldLeader.id, fromEpoch: details.oldLeader.epoch, to: details.newLeader.id });
    expect((change as { toEpoch: number }).toEpoch).toBeGreaterThanOrEqual(details.newLeader.epoch);
    expect(changeLines([change])[0]).toMatch(new RegExp(`the active controller moved from controller ${details.oldLeader.id} \\(epoch ${details.oldLeader.epoch}\\) to controller ${details.newLeader.id} \\(epoch \\d+\\)`));
    // The killed one is down: the quorum is one failure from losing its majority.
    expect(after.findings.find((f) => f.kind === 'quorum-at-risk')?.affected.controllers).toEqual([details.oldLeader.id]);
    await sandbox.start(details.oldLeader.id);
    await whole();
  }, 600_000);
});
