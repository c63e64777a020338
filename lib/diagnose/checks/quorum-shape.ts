// The preventive audit's checks of the KRaft controller quorum's shape, from
// the snapshot's quorum view (DescribeQuorum through the brokers): pure, one
// function per kind. Whether the voters follow right now is the diagnosis's
// (quorum-at-risk, metadata-log-lag); these name what makes a failure worse.
import type { Check, CheckInput } from './check.ts';
import type { Finding } from '../types.ts';
import { makeFinding, plural } from '../finding.ts';
import { majorityOf, type QuorumView } from '../../kafka/quorum-view.ts';

// The finding kinds this file's checks raise (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'quorum-size-unsafe': true;
    'quorum-static-voters': true;
  }
}

const answered = (q: QuorumView | undefined): q is QuorumView => q?.status === 'ok' && q.voters.length > 0;
const votersText = (q: QuorumView) => q.voters.map((v) => v.id).join(', ');
const source = (q: QuorumView) => `DescribeQuorum v${q.version} via broker ${q.source}`;

/** kraft.version 0 (controller.quorum.voters) on a line that answers DescribeQuorum v2, i.e. can run a dynamic quorum (3.9+). */
function staticQuorumVoters({ snapshot }: CheckInput): Finding[] {
  const q = snapshot.quorum;
  if (!answered(q) || q.kraftVersion !== 0 || q.dynamicQuorumSupported !== true) return [];
  return [
    makeFinding({
      kind: 'quorum-static-voters',
      severity: 'warning',
      title: `Static controller quorum (kraft.version 0) of ${plural(q.voters.length, 'voter')}: ${votersText(q)}`,
      summary:
        'The voters are fixed by controller.quorum.voters in every node\'s config. This Kafka line runs dynamic quorums (KIP-853), where a failed controller ' +
        'is replaced with add-controller / remove-controller while the cluster runs; with static voters it takes a config change and a roll of every node.',
      controllers: q.voters.map((v) => v.id),
      evidence: [
        { label: 'voter directory ids', value: q.voters.map((v) => `${v.id}=${v.directoryId ?? 'unknown'}`).join(', '), source: source(q) },
        { label: 'kraft.version', value: '0 (static voters: no voter has a directory id)', source: source(q) },
      ],
      identity: ['quorum'],
      nextActions: [
        'Plan the move to a dynamic quorum while every voter follows: kafka-features.sh upgrade --feature kraft.version=1 where the line supports it (4.1+), then controller.quorum.bootstrap.servers in place of controller.quorum.voters.',
      ],
    }),
  ];
}

/** One voter (no failure tolerated), or an even count (tolerates no more than the odd count below it). */
function quorumSizeUnsafe({ snapshot }: CheckInput): Finding[] {
  const q = snapshot.quorum;
  if (!answered(q)) return [];
  const n = q.voters.length;
  if (n !== 1 && n % 2 !== 0) return [];
  const tolerated = n - majorityOf(n);
  return [
    makeFinding({
      kind: 'quorum-size-unsafe',
      severity: n === 1 ? 'error' : 'warning',
      title: n === 1 ? `The controller quorum is one voter (controller ${q.voters[0]!.id})` : `The controller quorum has an even number of voters (${n}: ${votersText(q)})`,
      summary:
        n === 1
          ? `Controller ${q.voters[0]!.id} alone holds the metadata quorum: when it fails or restarts, no leader election, ISR change, reassignment, topic or config change happens, and no broker can register, until it is back.`
          : `${n} voters need ${majorityOf(n)} for a majority and so survive ${plural(tolerated, 'failure')}, no more than ${n - 1} would: the extra voter is one more node that can fail.`,
      controllers: q.voters.map((v) => v.id),
      evidence: [{ label: 'voters', value: `${votersText(q)} (majority ${majorityOf(n)}, tolerates ${plural(tolerated, 'failure')})`, source: source(q) }],
      identity: ['quorum'],
      nextActions: [
        n === 1
          ? 'Run three controllers on separate hosts: add two with kafka-metadata-quorum.sh add-controller (dynamic quorum) or list them in controller.quorum.voters on every node (static).'
          : `Run an odd number of controllers: ${n - 1} or ${n + 1} (kafka-metadata-quorum.sh remove-controller / add-controller on a dynamic quorum).`,
      ],
    }),
  ];
}

export const QUORUM_SHAPE_CHECKS: readonly Check[] = [
  {
    kinds: ['quorum-size-unsafe'],
    needs: ['metadata'],
    diagnosis: false,
    preventive: { prevents: 'every metadata change stopping when one controller too many fails (a single voter, or an even count)' },
    detect: quorumSizeUnsafe,
  },
  {
    kinds: ['quorum-static-voters'],
    needs: ['metadata'],
    diagnosis: false,
    preventive: { prevents: "a failed controller replaceable only by editing every node's config and rolling the cluster" },
    detect: staticQuorumVoters,
  },
];
