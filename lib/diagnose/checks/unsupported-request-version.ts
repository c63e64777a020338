// unsupported-request-version (per host, server.log): requests the broker cannot parse.

import type { Check } from './check.ts';
import type { Finding } from '../types.ts';
import { makeFinding } from '../finding.ts';
import { logLines, perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'unsupported-request-version': true;
  }
}

/** Requests the broker cannot parse. */
function unsupportedRequestVersion({ brokerId, report, host, brokers, id }: HostReport): Finding[] {
  if (report.logs.unsupportedRequestVersion.length > 0) {
    return [
      makeFinding({
        kind: 'unsupported-request-version',
        severity: 'error',
        title: `Broker ${brokerId} rejects requests with unsupported API versions`,
        summary: `${host} received requests it could not parse. On some versions the network layer then drops every request read in the same batch, so failures look intermittent.`,
        brokers,
        evidence: logLines('server.log', report.logs.unsupportedRequestVersion, brokerId),
        identity: id(),
        nextActions: ['Find the client (connection id / address in the line) and pin or upgrade its library.', 'Do not ignore a flapping write-failure alert.'],
      }),
    ];
  }
  return [];
}

export const unsupportedRequestVersionCheck: Check = perHost(['unsupported-request-version'], unsupportedRequestVersion);
