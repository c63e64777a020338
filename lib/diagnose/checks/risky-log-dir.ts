// risky-log-dir (per host): a log dir where cleanup tools, log rotation or a reboot can delete segments.

import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'risky-log-dir': true;
  }
}

/** What the renderer words: the broker and its host. */
interface Facts {
  brokerId: number;
  host: string;
}

/** Log dirs where rotation, cleanup tools or a reboot delete data. */
function detect({ brokerId, report, host, brokers, id }: HostReport): Detected<Facts>[] {
  const risky = report.logDirs.filter((d) => d.underVarLog || d.onTmpfs);
  if (risky.length === 0) return [];
  const evidence = risky.map((d) => ({ label: 'log dir', value: `${d.path} (fs ${d.fsType ?? '?'}${d.underVarLog ? ', under /var/log' : ''}${d.onTmpfs ? ', tmpfs' : ''})`, source: `broker:${brokerId}` }));
  return [{ finding: { kind: 'risky-log-dir', severity: 'warning', brokers, evidence, identity: id(...risky.map((d) => d.path)) }, facts: { brokerId, host } }];
}

function render({ brokerId, host }: Facts): FindingProse {
  return {
    title: `Broker ${brokerId} keeps Kafka data in a risky place`,
    summary: `log.dirs on ${host} are under /var/log or on tmpfs, where log rotation, cleanup tools or a reboot can delete segments.`,
    nextActions: ['Move log.dirs to a dedicated persistent volume (one broker at a time, with can-restart).'],
  };
}

export const riskyLogDirCheck: Check = {
  ...perHost(['risky-log-dir'], (h) => detect(h).map((d) => renderFinding(d, render))),
  preventive: { prevents: 'segments deleted under a broker by cleanup tools, log rotation or a reboot' },
};
