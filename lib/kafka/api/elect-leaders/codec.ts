// ElectLeaders (API key 43, KIP-183 / KIP-460), from Kafka's
// ElectLeadersRequest.json / ElectLeadersResponse.json (validVersions 0-2,
// flexibleVersions 2+; Kafka 4.x still accepts 0-2).
//   v1 adds ElectionType (0 = preferred, 1 = unclean) and a top-level ErrorCode.
//   v2 is v1 in the flexible encoding.
// We implement v1 and v2: v0 cannot ask for an unclean election, and every
// broker from 2.4 on (so all of 2.8-4.1) speaks v2.
import { type ApiDefinition, assertVersion, readerFor, writerFor } from '../../protocol/api.ts';
import { byTopic } from '../../partitions.ts';

export const ELECT_LEADERS_API_KEY = 43;
export const ELECTION_TYPE = { preferred: 0, unclean: 1 } as const;

export interface ElectLeadersArgs {
  electionType: keyof typeof ELECTION_TYPE;
  /** Explicit partitions; Kafka reads null as "every partition", which we never send. */
  partitions: readonly { topic: string; partition: number }[];
  timeoutMs: number;
}

export interface ElectLeadersResult {
  throttleTimeMs: number;
  errorCode: number;
  results: { topic: string; partitions: { partition: number; errorCode: number; errorMessage: string | null }[] }[];
}

export const ElectLeaders: ApiDefinition<ElectLeadersArgs, ElectLeadersResult> = {
  apiKey: ELECT_LEADERS_API_KEY,
  apiName: 'ElectLeaders',
  versions: [1, 2],
  firstFlexibleVersion: 2,
  encode(version, args) {
    assertVersion(ElectLeaders, version);
    const w = writerFor(ElectLeaders, version);
    w.int8(ELECTION_TYPE[args.electionType]);
    w.array(byTopic(args.partitions), (w, t) => {
      w.string(t.topic).int32Array(t.items.map((p) => p.partition)).tags();
    });
    return w.int32(args.timeoutMs).tags().buffer;
  },
  decode(version, body) {
    assertVersion(ElectLeaders, version);
    const r = readerFor(ElectLeaders, version, body);
    const throttleTimeMs = r.int32();
    const errorCode = r.int16();
    const results = r.topicPartitionResults('ElectLeaders topic');
    r.tags();
    return { throttleTimeMs, errorCode, results };
  },
};
