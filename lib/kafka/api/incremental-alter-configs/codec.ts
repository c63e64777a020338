// IncrementalAlterConfigs (API key 44, KIP-339), from Kafka's
// IncrementalAlterConfigsRequest.json / Response.json (validVersions 0-1,
// flexibleVersions 1+; unchanged in Kafka 4.x). v1 is v0 in the flexible
// encoding; brokers from 2.4 on speak v1, 2.3 only v0: we implement both.
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';

export const INCREMENTAL_ALTER_CONFIGS_API_KEY = 44;
/** ConfigResource.Type ids. */
export const CONFIG_RESOURCE_TYPE = { topic: 2, broker: 4 } as const;
/** AlterConfigOp.OpType ids. */
export const CONFIG_OPERATION = { set: 0, delete: 1, append: 2, subtract: 3 } as const;

export type ConfigResourceType = keyof typeof CONFIG_RESOURCE_TYPE;
export type ConfigOperation = keyof typeof CONFIG_OPERATION;

export interface IncrementalAlterConfigsArgs {
  resources: readonly {
    type: ConfigResourceType;
    name: string;
    ops: readonly { name: string; op: ConfigOperation; value: string | null }[];
  }[];
  validateOnly?: boolean;
}

export interface IncrementalAlterConfigsResult {
  throttleTimeMs: number;
  responses: { errorCode: number; errorMessage: string | null; resourceType: number; resourceName: string }[];
}

export const IncrementalAlterConfigs: ApiDefinition<IncrementalAlterConfigsArgs, IncrementalAlterConfigsResult> = {
  apiKey: INCREMENTAL_ALTER_CONFIGS_API_KEY,
  apiName: 'IncrementalAlterConfigs',
  versions: [0, 1],
  firstFlexibleVersion: 1,
  encode(version, args) {
    assertVersion(IncrementalAlterConfigs, version);
    const w = writerFor(IncrementalAlterConfigs, version);
    w.array(args.resources, (w, r) => {
      w.int8(CONFIG_RESOURCE_TYPE[r.type]).string(r.name);
      w.array(r.ops, (w, o) => {
        w.string(o.name).int8(CONFIG_OPERATION[o.op]).string(o.value).tags();
      });
      w.tags();
    });
    return w.bool(args.validateOnly ?? false).tags().buffer;
  },
  decode(version, body) {
    assertVersion(IncrementalAlterConfigs, version);
    const r = readerFor(IncrementalAlterConfigs, version, body);
    const throttleTimeMs = r.int32();
    const responses =
      r.array((r) => {
        const res = { errorCode: r.int16(), errorMessage: r.string(), resourceType: r.int8(), resourceName: r.requiredString('resource name') };
        r.tags();
        return res;
      }) ?? [];
    r.tags();
    return { throttleTimeMs, responses };
  },
};
