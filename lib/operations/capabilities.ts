// Powers beyond the Kafka protocol that only some kinds need: host control for
// a restart, replica measurements on the hosts for a leader override. A kind
// that needs one declares it into `Capabilities` (module augmentation, in its
// own folder) and lists its name in `needs`; nothing generic names one. The
// composition edge (backend.ts) checks once that every need of every kind is
// provided; a run resolves its kind's needs once per tick and hands them to
// the kind's steps and compensation.

/** One member per capability, declared by the kind that needs it: a provider, null when the cluster has no host access. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Capabilities {}
export type CapabilityName = keyof Capabilities;

/** Capabilities taken without arguments: resolved once per run tick (the others a kind calls itself while planning). */
export type RunCapabilityName = { [N in CapabilityName]: Capabilities[N] extends () => Promise<unknown> ? N : never }[CapabilityName];
type Resolved<N extends RunCapabilityName> = Capabilities[N] extends () => Promise<infer T> ? T : never;

/** What a run's steps and compensation receive: the kind's resolved needs (null: the cluster cannot provide it). */
export type RunCapabilities = { [N in RunCapabilityName]?: Resolved<N> | null };

/** Resolves the kind's run-time needs from the io (an io without a provider gives null: tests pass small fakes). */
export async function resolveCapabilities(needs: readonly CapabilityName[] | undefined, io: Partial<Capabilities>): Promise<RunCapabilities> {
  const out: Record<string, unknown> = {};
  for (const name of needs ?? []) {
    const provide = io[name] as (() => Promise<unknown>) | undefined;
    if (provide && provide.length === 0) out[name] = (await provide()) ?? null;
  }
  return out as RunCapabilities;
}

/** The composition edge's check: every capability a kind asks for has a provider, else a clear error at start-up. */
export function assertCapabilities(io: Partial<Capabilities>, kinds: readonly { kind: string; needs?: readonly CapabilityName[] }[]): void {
  const missing = kinds.flatMap((k) => (k.needs ?? []).filter((n) => typeof io[n] !== 'function').map((n) => `${k.kind} needs ${n}`));
  if (missing.length) throw new Error(`the operations backend does not provide what these operation kinds need: ${missing.join('; ')}`);
}
