// Config resources and who may answer for them: a broker resource only on its
// own broker (any other answers INVALID_REQUEST "Unexpected broker id", in
// both modes); topics and the cluster-wide broker default ('') on any broker.
import { CONFIG_RESOURCE_TYPE, type ConfigResourceType } from '../api/incremental-alter-configs/codec.ts';

export const configKey = (type: ConfigResourceType | number, name: string): string => `${typeof type === 'number' ? type : CONFIG_RESOURCE_TYPE[type]}\u0000${name}`;

export const configResourceType = (id: number): ConfigResourceType => (id === CONFIG_RESOURCE_TYPE.broker ? 'broker' : 'topic');

/** The broker that must answer for this resource, or 'any'. */
export function configOwner(r: { type: ConfigResourceType; name: string }): number | 'any' {
  return r.type === 'broker' && r.name !== '' ? Number(r.name) : 'any';
}

/** Refuses a malformed broker resource name or a resource asked twice. */
export function assertConfigResources(what: string, resources: readonly { type: ConfigResourceType; name: string }[]): void {
  const seen = new Set<string>();
  for (const r of resources) {
    if (r.type === 'broker' && r.name !== '' && !/^\d+$/.test(r.name)) throw new Error(`${what}: broker resource name must be a broker id or '' (cluster default), got '${r.name}'`);
    const k = configKey(r.type, r.name);
    if (seen.has(k)) throw new Error(`${what}: ${r.type} ${r.name} appears more than once`);
    seen.add(k);
  }
}
