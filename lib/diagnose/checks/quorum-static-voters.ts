// quorum-static-voters (preventive, DescribeQuorum): a static quorum (kraft.version 0) on a line that can run a dynamic one. The audit runs it.

import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';
import { plural } from '../finding.ts';
import { answered, source } from './quorum-shape-facts.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'quorum-static-voters': true;
  }
}

/** kraft.version 0 (controller.quorum.voters) on a line that answers DescribeQuorum v2, i.e. can run a dynamic quorum (3.9+). */
/** What the renderer words: the voter ids. */
interface Facts {
  voters: number[];
}

function detect({ snapshot }: CheckInput): Detected<Facts>[] {
  const q = snapshot.quorum;
  if (!answered(q) || q.kraftVersion !== 0 || q.dynamicQuorumSupported !== true) return [];
  const evidence = [
    { label: 'voter directory ids', value: q.voters.map((v) => `${v.id}=${v.directoryId ?? 'unknown'}`).join(', '), source: source(q) },
    { label: 'kraft.version', value: '0 (static voters: no voter has a directory id)', source: source(q) },
  ];
  const voters = q.voters.map((v) => v.id);
  return [{ finding: { kind: 'quorum-static-voters', severity: 'warning', controllers: voters, evidence, identity: ['quorum'] }, facts: { voters } }];
}

function render({ voters }: Facts): FindingProse {
  return {
    title: `Static controller quorum (kraft.version 0) of ${plural(voters.length, 'voter')}: ${voters.join(', ')}`,
    summary:
      'The voters are fixed by controller.quorum.voters in every node\'s config. This Kafka line runs dynamic quorums (KIP-853), where a failed controller ' +
      'is replaced with add-controller / remove-controller while the cluster runs; with static voters it takes a config change and a roll of every node.',
    nextActions: [
      'Plan the move to a dynamic quorum while every voter follows: kafka-features.sh upgrade --feature kraft.version=1 where the line supports it (4.1+), then controller.quorum.bootstrap.servers in place of controller.quorum.voters.',
    ],
  };
}

export const quorumStaticVotersCheck: Check = {
  kinds: ['quorum-static-voters'],
  needs: ['metadata'],
  diagnosis: false,
  preventive: { prevents: "a failed controller replaceable only by editing every node's config and rolling the cluster" },
  detect: (input) => detect(input).map((d) => renderFinding(d, render)),
};
