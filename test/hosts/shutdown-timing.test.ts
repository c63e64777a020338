import { describe, expect, it } from 'vitest';
import { lastShutdownSeconds } from '../../lib/hosts/shutdown-timing.ts';

describe('last controlled shutdown from server.log', () => {
  it('KRaft broker (BrokerServer, Kafka 3.x–4.x): "shutting down" to "shut down completed"', () => {
    const lines = [
      '[2026-11-30 18:21:14,094] INFO [BrokerServer id=1] shutting down (kafka.server.BrokerServer)',
      '[2026-11-30 18:21:14,441] INFO [BrokerServer id=1] shut down completed (kafka.server.BrokerServer)',
      '[2026-11-30 18:30:00,000] INFO [BrokerServer id=1] shutting down (kafka.server.BrokerServer)',
      '[2026-11-30 18:31:05,500] INFO [BrokerServer id=1] shut down completed (kafka.server.BrokerServer)',
    ];
    expect(lastShutdownSeconds(lines)).toBe(65.5);
  });

  it('ZooKeeper mode (KafkaServer); an unfinished shutdown (killed) does not count', () => {
    const lines = [
      '[2024-03-01 10:00:00,000] INFO [KafkaServer id=2] shutting down (kafka.server.KafkaServer)',
      '[2024-03-01 10:02:00,250] INFO [KafkaServer id=2] shut down completed (kafka.server.KafkaServer)',
      '[2024-03-02 10:00:00,000] INFO [KafkaServer id=2] shutting down (kafka.server.KafkaServer)',
    ];
    expect(lastShutdownSeconds(lines)).toBe(120.25);
    expect(lastShutdownSeconds(['[2024-03-02 10:00:00,000] INFO [KafkaServer id=2] shutting down (kafka.server.KafkaServer)'])).toBeNull();
  });

  it('Kafka 0.11 ("[Kafka Server 0], ")', () => {
    const lines = [
      '[2018-05-01 10:00:00,000] INFO [Kafka Server 0], shutting down (kafka.server.KafkaServer)',
      '[2018-05-01 10:01:40,000] INFO [Kafka Server 0], shut down completed (kafka.server.KafkaServer)',
    ];
    expect(lastShutdownSeconds(lines)).toBe(100);
  });
});
