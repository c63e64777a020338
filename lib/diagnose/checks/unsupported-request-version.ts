// unsupported-request-version (per host, server.log): requests the broker cannot parse.

import { renderFinding, type Check, type Detected, type FindingProse } from './check.ts';
import { logLines, perHost, type HostReport } from './host-report.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'unsupported-request-version': true;
  }
}

/** What the renderer words: the broker and its host. */
interface Facts {
  brokerId: number;
  host: string;
}

/** Requests the broker cannot parse. */
function detect({ brokerId, report, host, brokers, id }: HostReport): Detected<Facts>[] {
  if (report.logs.unsupportedRequestVersion.length === 0) return [];
  const evidence = logLines('server.log', report.logs.unsupportedRequestVersion, brokerId);
  return [{ finding: { kind: 'unsupported-request-version', severity: 'error', brokers, evidence, identity: id() }, facts: { brokerId, host } }];
}

function render({ brokerId, host }: Facts): FindingProse {
  return {
    title: `Broker ${brokerId} rejects requests with unsupported API versions`,
    summary: `${host} received requests it could not parse. On some versions the network layer then drops every request read in the same batch, so failures look intermittent.`,
    nextActions: ['Find the client (connection id / address in the line) and pin or upgrade its library.', 'Do not ignore a flapping write-failure alert.'],
  };
}

export const unsupportedRequestVersionCheck: Check = perHost(['unsupported-request-version'], (h) => detect(h).map((d) => renderFinding(d, render)));
