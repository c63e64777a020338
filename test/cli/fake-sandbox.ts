// A sandbox's cluster.json as `sandbox up` writes it on the default line (4.4.0: three
// controllers in a dynamic quorum, three brokers) under `home` (their host directories
// are not created: the tests that need them do).
import { join } from 'node:path';

export function fakeSandboxCluster(home: string) {
  const brokers = [1, 2, 3].map((id) => ({ id, port: 19090 + id, hostDir: join(home, `broker-${id}`) }));
  const controllers = [
    { id: 100, port: 19090, hostDir: join(home, 'controller-100'), directoryId: 'AAAAAAAAAAAAAAAAAAAAAA' },
    { id: 101, port: 19094, hostDir: join(home, 'controller-101'), directoryId: 'AQEBAQEBAQEBAQEBAQEBAQ' },
    { id: 102, port: 19095, hostDir: join(home, 'controller-102'), directoryId: 'AgICAgICAgICAgICAgICAg' },
  ];
  return {
    kafkaVersion: '4.4.0',
    mode: 'kraft',
    clusterId: 'test',
    portBase: 19090,
    bootstrapServers: '127.0.0.1:19091,127.0.0.1:19092,127.0.0.1:19093',
    binDir: join(home, 'bin'),
    controller: { id: 100, port: 19090, hostDir: join(home, 'controller-100') },
    controllers,
    controllerQuorum: 'dynamic',
    controllerBootstrapServers: '127.0.0.1:19090,127.0.0.1:19094,127.0.0.1:19095',
    brokers,
  };
}
