// One shape for every detector, host, metadata and consumer alike (Cruise
// Control's one small unit per anomaly): the kinds it may raise, the inputs it
// needs, and a pure detect(). A detector whose input is missing is skipped with
// a status that says why, and the list of checks that could not run is derived
// from `needs`, never written by hand. Adding a detector is one entry in its
// family's table (detectors/*.ts), and that table is listed once in
// detectors/index.ts.

import type { ClusterSnapshot } from '../kafka/types.ts';
import type { HostProbeOutcome } from '../hosts/types.ts';
import type { LagHistorySample } from './lag.ts';
import type { Finding, FindingKind } from './types.ts';

/**
 * Where a detector's facts come from. `metadata`: the Admin API snapshot
 * (every cluster, Amazon MSK included); `hosts`: the read-only host probes
 * (none without host access).
 */
export type DetectorSource = 'metadata' | 'hosts';

/** Everything a diagnosis knows: the detectors' one input. */
export interface DetectionInput {
  snapshot: ClusterSnapshot;
  probes: readonly HostProbeOutcome[];
  /** Earlier runs' lag samples (the bot); empty in the one-shot CLI. */
  lagHistory: readonly LagHistorySample[];
}

export interface Detector {
  /** Every kind this detector may raise (a test holds it to that). */
  kinds: readonly FindingKind[];
  /** Sources it cannot run without: missing one, it is skipped. */
  needs: readonly DetectorSource[];
  /** Sources it reads when they are there, with what part of the check each feeds; without them it runs on what is left. */
  uses?: Partial<Record<DetectorSource, string>>;
  /**
   * False for a detector that reports on the probe itself (a host that did not
   * answer), not on the cluster: it is not named among the checks that could not run.
   */
  isCheck?: false;
  detect(input: DetectionInput): Finding[];
}

export type DetectorOutcome =
  | { detector: Detector; status: 'ran'; findings: Finding[] }
  | { detector: Detector; status: 'skipped'; missing: DetectorSource[] };

/** The sources an input holds: host probes only when some host was probed. */
export function availableSources(input: DetectionInput): ReadonlySet<DetectorSource> {
  const sources = new Set<DetectorSource>(['metadata']);
  if (input.probes.length > 0) sources.add('hosts');
  return sources;
}

export function runDetectors(detectors: readonly Detector[], input: DetectionInput, available = availableSources(input)): DetectorOutcome[] {
  return detectors.map((detector) => {
    const missing = detector.needs.filter((s) => !available.has(s));
    return missing.length > 0 ? { detector, status: 'skipped', missing } : { detector, status: 'ran', findings: detector.detect(input) };
  });
}

/** The findings of the detectors that ran, in table order. */
export function findingsOf(outcomes: readonly DetectorOutcome[]): Finding[] {
  return outcomes.flatMap((o) => (o.status === 'ran' ? o.findings : []));
}

/**
 * The checks that do not run (or run in part) without `source`, as the report
 * names them: first every kind of the detectors that need it, then the kinds
 * of those that only read it, qualified.
 */
export function checksWithout(detectors: readonly Detector[], source: DetectorSource): string[] {
  const checks = detectors.filter((d) => d.isCheck !== false);
  return [
    ...checks.filter((d) => d.needs.includes(source)).flatMap((d) => d.kinds),
    ...checks.flatMap((d) => {
      const part = d.needs.includes(source) ? undefined : d.uses?.[source];
      return part === undefined ? [] : d.kinds.map((k) => `${k} (${part})`);
    }),
  ];
}

/**
 * A view computed once per input however many detectors read it (a family's
 * one pass over the partitions). Keyed weakly by the input object: no state
 * outlives the diagnosis.
 */
export function viewOnce<V>(build: (input: DetectionInput) => V): (input: DetectionInput) => V {
  const cache = new WeakMap<DetectionInput, V>();
  return (input) => {
    let v = cache.get(input);
    if (v === undefined) cache.set(input, (v = build(input)));
    return v;
  };
}
