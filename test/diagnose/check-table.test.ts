import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHECKS, DIAGNOSIS_CHECKS, FINDING_KINDS, HOST_CHECKS } from '../../lib/diagnose/checks/index.ts';
import { HOST_PROBE_CHECKS } from '../../lib/diagnose/checks/index.ts';
import { runChecks } from '../../lib/diagnose/checks/check.ts';
import { AUDIT_CHECKS } from '../../lib/audit/preventive.ts';
import type { HostProbeOutcome, ProbeReport } from '../../lib/hosts/types.ts';
import { execution, healthyCluster, okProbe, probeReport } from './fixtures.ts';

const logDir = probeReport().logDirs[0]!;
const logs = probeReport().logs;
const systemd = (over: Partial<NonNullable<ProbeReport['systemd']>>) => ({ unit: 'kafka.service', activeState: 'active', timeoutStopSec: 600, restarts: 0, lastExitStatus: 0, lastExitCode: 'exited', ...over });
const offsets = (segments: number) => [{ partition: 7, logDir: '/d', segments, bytes: 1e6, lastLoadStart: null, lastLoadFinish: null, loading: false }];

/** One probe per host problem, each meant to raise one kind. */
const HOST_CASES: readonly HostProbeOutcome[] = [
  okProbe(1, { logs: { ...logs, indexAppendFatal: ['Attempt to append an offset 12 to position 40 no larger than the last offset appended (15)'] } }),
  okProbe(1, { recoveryInProgress: true }),
  okProbe(1, { logs: { ...logs, corruptIndex: ['Found a corrupted index file corresponding to log file /d/00.log'] } }),
  okProbe(1, { logs: { ...logs, uncleanablePartitions: ['Marking its partition (orders-1) as uncleanable'] } }),
  okProbe(1, { consumerOffsets: offsets(60) }),
  okProbe(1, { logs: { ...logs, unsupportedRequestVersion: ['Received request api key 3 with version 13 which is not enabled'] } }),
  okProbe(1, { logDirs: [{ ...logDir, partitionDirsWithoutSegments: ['orders-3'], partitionDirsWithoutSegmentsCount: 1 }] }),
  okProbe(1, { logDirs: [{ ...logDir, underVarLog: true }] }),
  okProbe(1, { logDirs: [{ ...logDir, diskUsedPercent: 97 }] }),
  okProbe(1, { logDirs: [{ ...logDir, inodeUsedPercent: 97 }] }),
  okProbe(1, { limits: { openFds: 1000, maxFds: 1024, mapCount: 1, maxMapCount: 65530 } }),
  okProbe(1, { limits: { openFds: 1, maxFds: 1024, mapCount: 65000, maxMapCount: 65530 } }),
  okProbe(1, { systemd: systemd({ timeoutStopSec: 90 }) }),
  okProbe(1, { systemd: systemd({ activeState: 'failed', restarts: 5 }) }),
  { brokerId: 2, ok: false, reason: 'unreachable', message: 'SSM: Undeliverable', execution: execution(2, { status: 'Undeliverable', exitCode: null, stdout: '' }) },
  { brokerId: 2, ok: false, reason: 'malformed', message: 'not JSON', execution: execution(2, { stdout: 'garbage' }) },
];

describe('detector tables', () => {
  it('each host detector raises only the kinds it declares, and every declared kind is raised by some case', () => {
    const raised = new Set<string>();
    for (const probe of HOST_CASES) {
      for (const o of runChecks(HOST_PROBE_CHECKS, { snapshot: healthyCluster(), probes: [probe], lagHistory: [] })) {
        if (o.status !== 'ran') continue;
        for (const f of o.findings) {
          expect(o.check.kinds).toContain(f.kind);
          raised.add(f.kind);
        }
      }
    }
    expect([...raised].sort()).toEqual(HOST_PROBE_CHECKS.flatMap((d) => d.kinds).sort());
  });

  it('the host check list the report prints is the host detectors, plus the checks that read host log lines', () => {
    const needHosts = DIAGNOSIS_CHECKS.filter((d) => d.needs.includes('hosts') && d.isCheck !== false).flatMap((d) => d.kinds);
    expect(HOST_CHECKS.slice(0, needHosts.length)).toEqual(needHosts);
    expect(HOST_CHECKS).toContain('coordinator-loading (host log lines)');
    expect(HOST_CHECKS).not.toContain('host-unreachable');
    // Every check the report can name as skipped is documented with the other kinds (docs/findings.md).
    const findings = readFileSync(new URL('../../docs/findings.md', import.meta.url), 'utf8');
    for (const check of needHosts) expect(findings, `docs/findings.md names \`${check}\``).toContain(`\`${check}\``);
  });

  it('without host probes the host detectors are skipped for want of hosts; metadata detectors still run', () => {
    const outcomes = runChecks(DIAGNOSIS_CHECKS, { snapshot: healthyCluster(), probes: [], lagHistory: [] });
    const skipped = outcomes.filter((o) => o.status === 'skipped');
    expect(skipped.map((o) => o.check)).toEqual(HOST_PROBE_CHECKS);
    expect(skipped.every((o) => o.status === 'skipped' && o.missing.join() === 'hosts')).toBe(true);
    expect(outcomes.filter((o) => o.status === 'ran').length).toBe(DIAGNOSIS_CHECKS.length - HOST_PROBE_CHECKS.length);
  });

  it('every finding kind has one owner: one check in the table, run by the diagnosis, the audit or both', () => {
    const checkKinds = CHECKS.flatMap((d) => d.kinds);
    expect(new Set(checkKinds).size).toBe(checkKinds.length);
    const owned = new Set([...DIAGNOSIS_CHECKS.flatMap((d) => d.kinds), ...AUDIT_CHECKS.map((c) => c.kind)]);
    expect([...owned].sort()).toEqual([...FINDING_KINDS].sort());
  });
});
