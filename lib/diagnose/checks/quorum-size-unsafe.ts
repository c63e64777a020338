// quorum-size-unsafe (preventive, DescribeQuorum): a single voter, or an even count. The audit runs it.

import { renderFinding, type Check, type CheckInput, type Detected, type FindingProse } from './check.ts';
import { plural } from '../finding.ts';
import { majorityOf } from '../../kafka/quorum-view.ts';
import { answered, votersText, source } from './quorum-shape-facts.ts';

// The finding kind this check raises (FindingKind is the union of every check file's).
declare module '../types.ts' {
  interface FindingKindRegistry {
    'quorum-size-unsafe': true;
  }
}

/** One voter (no failure tolerated), or an even count (tolerates no more than the odd count below it). */
/** What the renderer words: the voter ids (one, or an even count). */
interface Facts {
  voters: number[];
}

function detect({ snapshot }: CheckInput): Detected<Facts>[] {
  const q = snapshot.quorum;
  if (!answered(q)) return [];
  const n = q.voters.length;
  if (n !== 1 && n % 2 !== 0) return [];
  const tolerated = n - majorityOf(n);
  const evidence = [{ label: 'voters', value: `${votersText(q)} (majority ${majorityOf(n)}, tolerates ${plural(tolerated, 'failure')})`, source: source(q) }];
  const voters = q.voters.map((v) => v.id);
  return [{ finding: { kind: 'quorum-size-unsafe', severity: n === 1 ? 'error' : 'warning', controllers: voters, evidence, identity: ['quorum'] }, facts: { voters } }];
}

function render({ voters }: Facts): FindingProse {
  const n = voters.length;
  const tolerated = n - majorityOf(n);
  return {
    title: n === 1 ? `The controller quorum is one voter (controller ${voters[0]!})` : `The controller quorum has an even number of voters (${n}: ${voters.join(', ')})`,
    summary:
      n === 1
        ? `Controller ${voters[0]!} alone holds the metadata quorum: when it fails or restarts, no leader election, ISR change, reassignment, topic or config change happens, and no broker can register, until it is back.`
        : `${n} voters need ${majorityOf(n)} for a majority and so survive ${plural(tolerated, 'failure')}, no more than ${n - 1} would: the extra voter is one more node that can fail.`,
    nextActions: [
      n === 1
        ? 'Run three controllers on separate hosts: add two with kafka-metadata-quorum.sh add-controller (dynamic quorum) or list them in controller.quorum.voters on every node (static).'
        : `Run an odd number of controllers: ${n - 1} or ${n + 1} (kafka-metadata-quorum.sh remove-controller / add-controller on a dynamic quorum).`,
    ],
  };
}

export const quorumSizeUnsafeCheck: Check = {
  kinds: ['quorum-size-unsafe'],
  needs: ['metadata'],
  diagnosis: false,
  preventive: { prevents: 'every metadata change stopping when one controller too many fails (a single voter, or an even count)' },
  detect: (input) => detect(input).map((d) => renderFinding(d, render)),
};
