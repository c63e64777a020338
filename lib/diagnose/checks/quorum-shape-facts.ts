// What the quorum-shape checks (quorum-size-unsafe.ts, quorum-static-voters.ts) read of DescribeQuorum. Helpers only: no check lives here.

import type { QuorumView } from '../../kafka/quorum-view.ts';

export const answered = (q: QuorumView | undefined): q is QuorumView => q?.status === 'ok' && q.voters.length > 0;

export const votersText = (q: QuorumView) => q.voters.map((v) => v.id).join(', ');

export const source = (q: QuorumView) => `DescribeQuorum v${q.version} via broker ${q.source}`;
