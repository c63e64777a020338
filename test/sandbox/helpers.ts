// What integration tests share: the run's sandbox and Kafka's own CLI as the oracle.
import { Sandbox } from '../../sandbox/cluster.ts';
import { sandboxSettings } from '../../sandbox/layout.ts';
import { kafkaTool, parseTopicDescribe, type DescribedPartition } from '../../sandbox/client.ts';

export const hasSandbox = () => process.env.KR_SKIP_SANDBOX !== '1' && !!process.env.KR_SANDBOX_HOME;

export function testSandbox(): Sandbox {
  return new Sandbox(sandboxSettings(), () => {});
}

export type TopicsFilter = '--unavailable-partitions' | '--under-replicated-partitions' | '--under-min-isr-partitions' | '--at-min-isr-partitions';

/** `kafka-topics.sh --describe <filter>`, as "topic:partition" strings, optionally for some topics only. */
export async function kafkaTopicsFilter(sandbox: Sandbox, filter: TopicsFilter, topics?: readonly string[]): Promise<string[]> {
  const out = await kafkaTool(sandbox.binDir, 'kafka-topics.sh', ['--bootstrap-server', sandbox.bootstrapServers, '--describe', filter]);
  return parseTopicDescribe(out)
    .filter((p) => !topics || topics.includes(p.topic))
    .map((p) => `${p.topic}:${p.partition}`)
    .sort();
}

export async function kafkaTopicsDescribe(sandbox: Sandbox, topic: string): Promise<DescribedPartition[]> {
  return parseTopicDescribe(await kafkaTool(sandbox.binDir, 'kafka-topics.sh', ['--bootstrap-server', sandbox.bootstrapServers, '--describe', '--topic', topic]));
}
