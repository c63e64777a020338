// One shape for every check, diagnosis and preventive audit alike (Cruise
// Control's one small unit per anomaly): the kinds it may raise, the inputs it
// needs, the profiles that run it, and a pure detect(). A check whose input is
// missing is skipped with a status that says why, and the list of checks that
// could not run is derived from `needs`, never written by hand. Adding a check
// is one file under checks/ and one line in the table (checks/index.ts).

import type { ClusterSnapshot } from '../../kafka/types.ts';
import type { HostProbeOutcome } from '../../hosts/types.ts';
import type { LagHistorySample } from '../lag-verdict.ts';
import type { StorageSample } from '../storage-samples.ts';
import type { Finding, FindingKind, OperationOffer } from '../types.ts';
import { makeFinding, type FindingInput } from '../finding.ts';

/**
 * Where a check's facts come from. `metadata`: the Admin API snapshot (every
 * cluster, Amazon MSK included); `hosts`: the read-only host probes (none
 * without host access); `broker-configs`: DescribeConfigs per broker (the
 * audit reads them); `history`: storage samples kept between audit runs.
 */
export type CheckSource = 'metadata' | 'hosts' | 'broker-configs' | 'history';

/**
 * Who runs a check: `diagnosis` (what is wrong now: /kafka diagnose, alerts)
 * or `preventive` (the audit: what makes the next failure worse).
 */
export type CheckProfile = 'diagnosis' | 'preventive';

/** Broker configs by broker id: name → value (null when sensitive or unset). */
export type BrokerConfigs = ReadonlyMap<number, Readonly<Record<string, string | null>>>;

/** Everything a run knows: the checks' one input. The audit's extra sources are absent in a diagnosis. */
export interface CheckInput {
  snapshot: ClusterSnapshot;
  probes: readonly HostProbeOutcome[];
  /** Earlier runs' lag samples (the bot); empty in the one-shot CLI. */
  lagHistory: readonly LagHistorySample[];
  /** Which profile runs the checks (a check may judge alike but report differently); a diagnosis when absent. */
  profile?: CheckProfile;
  /** null when no broker answered DescribeConfigs. */
  brokerConfigs?: BrokerConfigs | null;
  /** Earlier storage samples (the bot's audit); null in the one-shot CLI: no trend yet. */
  storageHistory?: readonly StorageSample[] | null;
  nowMs?: number;
}

export interface Check {
  /** Every kind this check may raise (a test holds it to that). */
  kinds: readonly FindingKind[];
  /** Sources it cannot run without: missing one, it is skipped. */
  needs: readonly CheckSource[];
  /** Sources it reads when they are there, with what part of the check each feeds; without them it runs on what is left. */
  uses?: Partial<Record<CheckSource, string>>;
  /**
   * False for a check that reports on the probe itself (a host that did not
   * answer), not on the cluster: it is not named among the checks that could not run.
   */
  isCheck?: false;
  /** The diagnosis runs it unless this is false (an audit-only check). */
  diagnosis?: false;
  /** Present when the preventive audit runs it: the failure its kind leads to, said plainly. */
  preventive?: { prevents: string };
  detect(input: CheckInput): Finding[];
  /**
   * The operation one of its findings offers (the Slack "Plan …" button), from
   * the finding's coded facts; absent or undefined: no button.
   */
  offer?(finding: Finding): OperationOffer | undefined;
}

/** A finding's prose, owned by its check's renderer: what the reader is told and what to do next. */
export type FindingProse = Pick<FindingInput, 'title' | 'summary' | 'nextActions'>;

/**
 * What a check's detect finds, prose-free: the finding's coded parts (kind,
 * severity, what it affects, evidence, identity) and the typed facts its
 * renderer turns into words.
 */
export interface Detected<F> {
  finding: Omit<FindingInput, keyof FindingProse>;
  facts: F;
}

// The facts each finding was worded from: a test reads them to hold every check to the split.
const factsOf = new WeakMap<Finding, unknown>();

/** The Finding of what detect found, worded by the check's renderer (in the same file). */
export function renderFinding<F>(d: Detected<F>, render: (facts: F) => FindingProse): Finding {
  const f = makeFinding({ ...d.finding, ...render(d.facts) });
  factsOf.set(f, d.facts);
  return f;
}

/** The facts renderFinding worded `f` from; undefined for a finding it did not make. */
export const renderedFacts = (f: Finding): unknown => factsOf.get(f);

export type CheckOutcome = { check: Check; status: 'ran'; findings: Finding[] } | { check: Check; status: 'skipped'; missing: CheckSource[] };

/** The checks a profile runs, in table order. */
export function checksOf(checks: readonly Check[], profile: CheckProfile): Check[] {
  return checks.filter((c) => (profile === 'diagnosis' ? c.diagnosis !== false : c.preventive !== undefined));
}

/** The sources a diagnosis input holds: host probes only when some host was probed. */
export function availableSources(input: CheckInput): ReadonlySet<CheckSource> {
  const sources = new Set<CheckSource>(['metadata']);
  if (input.probes.length > 0) sources.add('hosts');
  return sources;
}

export function runChecks(checks: readonly Check[], input: CheckInput, available = availableSources(input)): CheckOutcome[] {
  return checks.map((check) => {
    const missing = check.needs.filter((s) => !available.has(s));
    return missing.length > 0 ? { check, status: 'skipped', missing } : { check, status: 'ran', findings: check.detect(input) };
  });
}

/** The findings of the checks that ran, in table order. */
export function findingsOf(outcomes: readonly CheckOutcome[]): Finding[] {
  return outcomes.flatMap((o) => (o.status === 'ran' ? o.findings : []));
}

/**
 * The checks that do not run (or run in part) without `source`, as the report
 * names them: first every kind of the checks that need it, then the kinds
 * of those that only read it, qualified.
 */
export function checksWithout(checks: readonly Check[], source: CheckSource): string[] {
  const named = checks.filter((c) => c.isCheck !== false);
  return [
    ...named.filter((c) => c.needs.includes(source)).flatMap((c) => c.kinds),
    ...named.flatMap((c) => {
      const part = c.needs.includes(source) ? undefined : c.uses?.[source];
      return part === undefined ? [] : c.kinds.map((k) => `${k} (${part})`);
    }),
  ];
}

/** What the table of checks derives: each profile's checks, the finding kinds, the host check list, the offers. */
export interface CheckTable {
  CHECKS: readonly Check[];
  /** What a diagnosis runs: what is wrong now. */
  DIAGNOSIS_CHECKS: readonly Check[];
  /** What the audit runs: what makes the next failure worse. */
  PREVENTIVE_CHECKS: readonly Check[];
  /** Every finding kind, in table order: each has its runbook, runbooks/<kind>.md (a test holds it). */
  FINDING_KINDS: readonly FindingKind[];
  /** The diagnosis's checks that need host access (or read it in part), as the report names skipped checks. */
  HOST_CHECKS: readonly string[];
  /** The operation a finding offers, as the check that owns its kind declares it. */
  offerFor(f: Finding): OperationOffer | undefined;
}

export function checkTable(checks: readonly Check[]): CheckTable {
  const diagnosis = checksOf(checks, 'diagnosis');
  const ownerOf = new Map(checks.flatMap((c) => c.kinds.map((k) => [k, c] as const)));
  return {
    CHECKS: checks,
    DIAGNOSIS_CHECKS: diagnosis,
    PREVENTIVE_CHECKS: checksOf(checks, 'preventive'),
    FINDING_KINDS: [...ownerOf.keys()],
    HOST_CHECKS: checksWithout(diagnosis, 'hosts'),
    offerFor: (f) => ownerOf.get(f.kind)?.offer?.(f),
  };
}

/**
 * A view computed once per input however many checks read it (a family's
 * one pass over the partitions). Keyed weakly by the input object: no state
 * outlives the run.
 */
export function viewOnce<V>(build: (input: CheckInput) => V): (input: CheckInput) => V {
  const cache = new WeakMap<CheckInput, V>();
  return (input) => {
    let v = cache.get(input);
    if (v === undefined) cache.set(input, (v = build(input)));
    return v;
  };
}
