// kafkajs's request definitions as we send them: an API whose encoder and
// decoder kafkajs 2.2.4 already has (DescribeGroups, DescribeConfigs,
// FindCoordinator, OffsetCommit, ListPartitionReassignments) is named here and
// typed by its folder in lib/kafka/api/; the connection layer (lib/kafka/wire.ts)
// sends it like one of our own definitions (protocol/api.ts).
//
// This reaches into kafkajs/src (not its public API). kafkajs 2.2.4 is the
// final release and pinned by package-lock; test/kafka/wire.test.ts fails
// loudly if the internals move.

// Static imports of the CommonJS internals (default = module.exports), so
// esbuild bundles them into the Lambda like any other dependency.
import requestsModule from 'kafkajs/src/protocol/requests/index.js';
import apiKeysModule from 'kafkajs/src/protocol/requests/apiKeys.js';
import type { ApiDefinition } from './api.ts';

export type ProtocolFactory = (args?: unknown) => { request: unknown; response: { decode(raw: Buffer): Promise<unknown> } };
/** A request definition in kafkajs's shape: the versions it implements, and a factory per version. */
export interface RequestDefinition {
  versions: string[];
  protocol(o: { version: number }): ProtocolFactory;
}

const { requests } = requestsModule as { requests: Record<string, RequestDefinition> };
const apiKeys = apiKeysModule as Record<string, number>;

/** One of kafkajs's request definitions, named and typed like one of ours. */
export interface KafkajsApi<A, R> {
  apiKey: number;
  apiName: string;
  kafkajs: RequestDefinition;
  /** Phantom: the argument and decoded-response types. */
  readonly types?: (a: A) => R;
}

/** What WireBroker.request sends: our definition (protocol/api.ts) or kafkajs's. */
export type WireApi<A, R> = ApiDefinition<A, R> | KafkajsApi<A, R>;

/** kafkajs's request `name` (its own spelling), sent and reported as `apiName`. */
export function kafkajsApi<A, R>(name: string, apiName = name): KafkajsApi<A, R> {
  const apiKey = apiKeys[name];
  const definition = requests[name];
  if (apiKey === undefined || !definition || definition.versions.length === 0) throw new Error(`kafkajs has no ${name} request`);
  return { apiKey, apiName, kafkajs: definition };
}
