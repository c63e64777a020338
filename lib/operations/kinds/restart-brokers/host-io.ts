// What a restart reaches on the hosts, and what its steps receive: the types
// shared by the restart's planner and steps (plan.ts) and its controllers'
// part (controllers.ts).
import type { ProbeReport } from '../../../hosts/types.ts';
import type { ServiceCall, ServiceRunResult, ServiceStatus } from '../../../hosts/service-control.ts';
import type { ClusterSnapshot } from '../../../kafka/types.ts';
import type { BrokerHostPaths, TopicPartition } from '../../types.ts';

declare module '../../types.ts' {
  interface PlanStepsByAction {
    'restart-check': {
      /**
       * Restart: can-restart, live, right before this broker stops. On "no" the run
       * pauses (nothing stops) and says why; an approver's Resume checks again.
       */
      action: 'restart-check';
      description: string;
      broker: number;
      /** A KRaft controller's step (`broker` is then its node id); absent: a broker's. */
      role?: 'controller';
    };
    'stop-broker': {
      /**
       * Graceful stop through the host's service (never SIGKILL), then waits,
       * across invocations, for the process to exit, up to `boundSeconds`. Past the
       * bound the run stops and reports: the broker is left stopping. Once it has
       * exited, the clean-shutdown marker must be in every visible log dir.
       */
      action: 'stop-broker';
      description: string;
      broker: number;
      boundSeconds: number;
      host: BrokerHostPaths;
      role?: 'controller';
    };
    'start-broker': { action: 'start-broker'; description: string; broker: number; host: BrokerHostPaths; role?: 'controller' };
    'wait-broker-ready': {
      /** Registered again, log loading done, and back in the ISR of every partition it hosts. */
      action: 'wait-broker-ready';
      description: string;
      broker: number;
      timeoutSeconds: number;
      host: BrokerHostPaths;
    };
    'wait-controller-ready': {
      /** A KRaft controller back in the quorum: fetching from the leader and caught up (DescribeQuorum; kinds/restart-brokers/controllers.ts). */
      action: 'wait-controller-ready';
      description: string;
      /** The controller's node id. */
      broker: number;
      timeoutSeconds: number;
      host: BrokerHostPaths;
    };
  }
}

/** can-restart's answer, as restarts use it (lib/diagnose/can-restart.ts). */
export interface RestartVerdict {
  verdict: 'yes' | 'no';
  reasons: string[];
  wouldGoOffline: TopicPartition[];
  recovering: boolean | null;
}
export type AssessRestart = (snapshot: ClusterSnapshot, brokerId: number, probe: ProbeReport | null) => RestartVerdict;

/** What restart steps reach on the hosts. */
export interface RestartIo {
  assess: AssessRestart;
  /** The broker's host probe; null when the host cannot be probed. */
  probe(brokerId: number): Promise<ProbeReport | null>;
  service(brokerId: number, call: ServiceCall): Promise<ServiceRunResult>;
  /** Parsed `status` of the broker's service. */
  status(brokerId: number, host: BrokerHostPaths): Promise<ServiceStatus>;
  /** Whether the bot reaches this node's host (a KRaft controller's, too); absent: every node it is asked about. */
  hasHost?(nodeId: number): boolean;
}

/** What the backend measured per broker before planning. */
export interface RestartFacts {
  brokerId: number;
  probe: ProbeReport | null;
  lastShutdownSeconds: number | null;
  systemdStopTimeoutSeconds: number | null;
  pid: number | null;
  host: BrokerHostPaths;
}

export type RestartStepOutcome = { status: 'done'; detail: string; data?: Record<string, unknown> } | { status: 'waiting'; progress: string; data?: Record<string, unknown> };

export interface RestartStepContext {
  restart: RestartIo | null;
  snapshot(): Promise<ClusterSnapshot>;
  /** This step's progress data from earlier polls. */
  progress: Record<string, unknown> | undefined;
  stepStartedAt: number;
  /** An approver pressed Resume on a pause of this step (with that pause's code): carry on past what paused it. */
  resumedFrom: string | null;
  now(): number;
}
