// risky-log-dir (per host): a log dir where cleanup tools, log rotation or a reboot can delete segments.

import type { Check } from './check.ts';
import type { Finding } from '../types.ts';
import { makeFinding } from '../finding.ts';
import { perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'risky-log-dir': true;
  }
}

/** Log dirs where rotation, cleanup tools or a reboot delete data. */
function riskyLogDir({ brokerId, report, host, brokers, id }: HostReport): Finding[] {
  const risky = report.logDirs.filter((d) => d.underVarLog || d.onTmpfs);
  if (risky.length > 0) {
    return [
      makeFinding({
        kind: 'risky-log-dir',
        severity: 'warning',
        title: `Broker ${brokerId} keeps Kafka data in a risky place`,
        summary: `log.dirs on ${host} are under /var/log or on tmpfs, where log rotation, cleanup tools or a reboot can delete segments.`,
        brokers,
        evidence: risky.map((d) => ({ label: 'log dir', value: `${d.path} (fs ${d.fsType ?? '?'}${d.underVarLog ? ', under /var/log' : ''}${d.onTmpfs ? ', tmpfs' : ''})`, source: `broker:${brokerId}` })),
        identity: id(...risky.map((d) => d.path)),
        nextActions: ['Move log.dirs to a dedicated persistent volume (one broker at a time, with can-restart).'],
      }),
    ];
  }
  return [];
}

export const riskyLogDirCheck: Check = {
  ...perHost(['risky-log-dir'], riskyLogDir),
  preventive: { prevents: 'segments deleted under a broker by cleanup tools, log rotation or a reboot' },
};
