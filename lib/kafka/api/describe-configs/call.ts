// DescribeConfigs (API key 32): current values, dynamic and static; a broker
// resource from that broker (see the config-owners route).
import { DescribeConfigsWire } from './codec.ts';
import { describeError } from '../../errors.ts';
import { CONFIG_RESOURCE_TYPE } from '../incremental-alter-configs/codec.ts';
import type { FanOutApi } from '../../router/spec.ts';
import { configKey, configResourceType } from '../../router/config-owners.ts';
import { missingResult } from '../../router/results.ts';
import type { ConfigDescription, ConfigResourceType } from '../../admin/types.ts';

export interface ConfigQuery {
  type: ConfigResourceType;
  name: string;
  /** Omitted: every config. */
  names?: string[];
}

type Api = typeof DescribeConfigsWire;
type Args = Api extends { types?: (a: infer A) => unknown } ? A : never;
type Res = Api extends { types?: (a: never) => infer R } ? R : never;

export const DescribeConfigs: FanOutApi<ConfigQuery, Args, Res, ConfigDescription> = {
  name: 'DescribeConfigs',
  api: DescribeConfigsWire,
  route: { to: 'config-owners' },
  key: (r) => configKey(r.type, r.name),
  build: (batch) => ({
    // kafkajs writes an empty name list as null: every config.
    resources: batch.map((r) => ({ type: CONFIG_RESOURCE_TYPE[r.type], name: r.name, configNames: r.names ?? [] })),
    includeSynonyms: false,
  }),
  toResults(res) {
    const out = new Map<string, ConfigDescription>();
    for (const r of res.resources) {
      out.set(configKey(r.resourceType, r.resourceName), {
        type: configResourceType(r.resourceType),
        name: r.resourceName,
        errorCode: r.errorCode,
        error: describeError(r.errorCode, r.errorMessage),
        entries: (r.configEntries ?? []).map((e) => ({
          name: e.configName,
          value: e.configValue,
          isDefault: e.isDefault,
          source: e.configSource,
          isSensitive: e.isSensitive,
          readOnly: e.readOnly,
        })),
      });
    }
    return out;
  },
  failed: (r, errorCode, error) => ({ type: r.type, name: r.name, errorCode, error, entries: [] }),
  missing: (r) => ({ type: r.type, name: r.name, entries: [], ...missingResult('resource') }),
};
