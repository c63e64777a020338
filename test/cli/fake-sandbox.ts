// A sandbox's cluster.json as `sandbox up` writes it, for three brokers under `home`
// (their host directories are not created: the tests that need them do).
import { join } from 'node:path';

export function fakeSandboxCluster(home: string) {
  const brokers = [1, 2, 3].map((id) => ({ id, port: 19090 + id, hostDir: join(home, `broker-${id}`) }));
  return {
    kafkaVersion: '4.4.0',
    mode: 'kraft',
    clusterId: 'test',
    portBase: 19090,
    bootstrapServers: '127.0.0.1:19091,127.0.0.1:19092,127.0.0.1:19093',
    binDir: join(home, 'bin'),
    controller: { id: 100, port: 19190, hostDir: join(home, 'controller') },
    brokers,
  };
}
