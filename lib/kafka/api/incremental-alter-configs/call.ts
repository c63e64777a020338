// IncrementalAlterConfigs (API key 44, KIP-339): set | delete | append |
// subtract, per resource; a broker resource on that broker.
import { IncrementalAlterConfigs as Definition, type IncrementalAlterConfigsArgs, type IncrementalAlterConfigsResult } from './codec.ts';
import { describeError } from '../../errors.ts';
import type { FanOutApi } from '../../router/spec.ts';
import { configKey, configResourceType } from '../../router/config-owners.ts';
import { missingResult } from '../../router/results.ts';
import type { ConfigAlteration, ConfigResult } from '../../admin/types.ts';

export const IncrementalAlterConfigs: FanOutApi<ConfigAlteration, IncrementalAlterConfigsArgs, IncrementalAlterConfigsResult, ConfigResult> = {
  name: 'IncrementalAlterConfigs',
  api: Definition,
  route: { to: 'config-owners' },
  key: (r) => configKey(r.type, r.name),
  build: (batch) => ({ resources: batch }),
  toResults(res) {
    const out = new Map<string, ConfigResult>();
    for (const r of res.responses) {
      out.set(configKey(r.resourceType, r.resourceName), { type: configResourceType(r.resourceType), name: r.resourceName, errorCode: r.errorCode, error: describeError(r.errorCode, r.errorMessage) });
    }
    return out;
  },
  failed: (r, errorCode, error) => ({ type: r.type, name: r.name, errorCode, error }),
  missing: (r) => ({ type: r.type, name: r.name, ...missingResult('resource') }),
};
