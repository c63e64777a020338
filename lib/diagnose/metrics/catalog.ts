// The one table of broker metrics the diagnosis reads: each metric by the
// name the Prometheus JMX exporter gives Kafka's MBean (with rules shaped like
// the exporter's published Kafka example: lower-case names, `*PerSec` meters
// as `_total` counters, gauges by type and name) and by its Amazon MSK
// CloudWatch name (namespace AWS/Kafka). A metric MSK does not publish has no
// CloudWatch entry; a metric is added here and nowhere else.

export const METRIC_IDS = [
  'underReplicated',
  'offlinePartitions',
  'activeController',
  'isrShrinks',
  'isrExpands',
  'uncleanElections',
  'requestHandlerIdle',
  'networkProcessorIdle',
  'failedProduce',
  'failedFetch',
  'diskUsed',
  'scrapeUp',
] as const;
export type MetricId = (typeof METRIC_IDS)[number];

export type MetricUnit = 'count' | 'per-second' | 'percent' | 'bytes';

export interface MetricDefinition {
  /** Kafka's own name for it, as operators know it. */
  title: string;
  unit: MetricUnit;
  /** The MBean, for the reader of this table. */
  mbean: string;
  /**
   * PromQL over the exporter's series; `{SEL}` becomes the cluster's label
   * matchers, `BY` the broker label, `RANGE` the rate window. One series per broker.
   */
  promql: string;
  /** MSK CloudWatch: metric name, statistic, and whether it has a "Broker ID" dimension. */
  cloudwatch: { metricName: string; stat: 'Maximum' | 'Average' | 'Sum'; perBroker: boolean; unit?: MetricUnit } | null;
  /** Other names an alert may call this metric by (Alertmanager alertname, CloudWatch MetricName). */
  aliases: string[];
}

export const METRICS: Record<MetricId, MetricDefinition> = {
  underReplicated: {
    title: 'UnderReplicatedPartitions',
    unit: 'count',
    mbean: 'kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions',
    promql: 'max by (BY) (kafka_server_replicamanager_underreplicatedpartitions{SEL})',
    cloudwatch: { metricName: 'UnderReplicatedPartitions', stat: 'Maximum', perBroker: true },
    aliases: ['KafkaUnderReplicatedPartitions', 'UnderReplicatedPartitions'],
  },
  offlinePartitions: {
    title: 'OfflinePartitionsCount',
    unit: 'count',
    mbean: 'kafka.controller:type=KafkaController,name=OfflinePartitionsCount',
    promql: 'max by (BY) (kafka_controller_kafkacontroller_offlinepartitionscount{SEL})',
    cloudwatch: { metricName: 'OfflinePartitionsCount', stat: 'Maximum', perBroker: false },
    aliases: ['KafkaOfflinePartitions', 'OfflinePartitionsCount'],
  },
  activeController: {
    title: 'ActiveControllerCount',
    unit: 'count',
    mbean: 'kafka.controller:type=KafkaController,name=ActiveControllerCount',
    promql: 'max by (BY) (kafka_controller_kafkacontroller_activecontrollercount{SEL})',
    cloudwatch: { metricName: 'ActiveControllerCount', stat: 'Maximum', perBroker: false },
    aliases: ['KafkaNoActiveController', 'ActiveControllerCount'],
  },
  isrShrinks: {
    title: 'IsrShrinksPerSec',
    unit: 'per-second',
    mbean: 'kafka.server:type=ReplicaManager,name=IsrShrinksPerSec',
    promql: 'sum by (BY) (rate(kafka_server_replicamanager_isrshrinks_total{SEL}[RANGE]))',
    cloudwatch: null,
    aliases: ['KafkaIsrShrinks', 'IsrShrinksPerSec'],
  },
  isrExpands: {
    title: 'IsrExpandsPerSec',
    unit: 'per-second',
    mbean: 'kafka.server:type=ReplicaManager,name=IsrExpandsPerSec',
    promql: 'sum by (BY) (rate(kafka_server_replicamanager_isrexpands_total{SEL}[RANGE]))',
    cloudwatch: null,
    aliases: ['IsrExpandsPerSec'],
  },
  uncleanElections: {
    title: 'UncleanLeaderElectionsPerSec',
    unit: 'per-second',
    mbean: 'kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec',
    promql: 'sum by (BY) (rate(kafka_controller_controllerstats_uncleanleaderelections_total{SEL}[RANGE]))',
    cloudwatch: null,
    aliases: ['KafkaUncleanLeaderElection', 'UncleanLeaderElectionsPerSec'],
  },
  requestHandlerIdle: {
    title: 'RequestHandlerAvgIdlePercent',
    unit: 'percent',
    mbean: 'kafka.server:type=KafkaRequestHandlerPool,name=RequestHandlerAvgIdlePercent',
    // A meter marked in idle nanoseconds per handler thread: its rate per second / 1e9 is the idle fraction.
    // The exporter's 1.x releases append _total to the example rules' `_count` counter; 0.x did not.
    promql: 'avg by (BY) (rate({__name__=~"kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent_count(_total)?",SEL}[RANGE])) / 1e7',
    cloudwatch: { metricName: 'RequestHandlerAvgIdlePercent', stat: 'Average', perBroker: true },
    aliases: ['KafkaRequestHandlerIdleLow', 'RequestHandlerAvgIdlePercent'],
  },
  networkProcessorIdle: {
    title: 'NetworkProcessorAvgIdlePercent',
    unit: 'percent',
    mbean: 'kafka.network:type=SocketServer,name=NetworkProcessorAvgIdlePercent',
    promql: 'avg by (BY) (kafka_network_socketserver_networkprocessoravgidlepercent{SEL}) * 100',
    cloudwatch: { metricName: 'NetworkProcessorAvgIdlePercent', stat: 'Average', perBroker: true },
    aliases: ['KafkaNetworkProcessorIdleLow', 'NetworkProcessorAvgIdlePercent'],
  },
  failedProduce: {
    title: 'FailedProduceRequestsPerSec',
    unit: 'per-second',
    mbean: 'kafka.server:type=BrokerTopicMetrics,name=FailedProduceRequestsPerSec',
    // The broker-wide meter has no topic label; the per-topic ones would count twice.
    promql: 'sum by (BY) (rate(kafka_server_brokertopicmetrics_failedproducerequests_total{SEL,topic=""}[RANGE]))',
    cloudwatch: null,
    aliases: ['FailedProduceRequestsPerSec'],
  },
  failedFetch: {
    title: 'FailedFetchRequestsPerSec',
    unit: 'per-second',
    mbean: 'kafka.server:type=BrokerTopicMetrics,name=FailedFetchRequestsPerSec',
    promql: 'sum by (BY) (rate(kafka_server_brokertopicmetrics_failedfetchrequests_total{SEL,topic=""}[RANGE]))',
    cloudwatch: null,
    aliases: ['FailedFetchRequestsPerSec'],
  },
  diskUsed: {
    title: 'Log size (disk used)',
    unit: 'bytes',
    mbean: 'kafka.log:type=Log,name=Size (per partition, summed per broker); MSK: KafkaDataLogsDiskUsed (percent)',
    promql: 'sum by (BY) (kafka_log_log_size{SEL})',
    cloudwatch: { metricName: 'KafkaDataLogsDiskUsed', stat: 'Maximum', perBroker: true, unit: 'percent' },
    aliases: ['KafkaDataLogsDiskUsed', 'KafkaDiskUsage'],
  },
  scrapeUp: {
    title: 'Scrape up',
    unit: 'count',
    mbean: "none: Prometheus' own `up` series, 0 from the first scrape a broker no longer answers",
    promql: 'max by (BY) (up{SEL})',
    cloudwatch: null,
    aliases: [],
  },
};

/** The metric an alert is about, by alertname or CloudWatch MetricName (case-insensitive), if it is one of ours. */
export function metricForAlert(alertname: string | undefined): MetricId | null {
  if (!alertname) return null;
  const name = alertname.toLowerCase();
  for (const id of METRIC_IDS) {
    const def = METRICS[id];
    if ([def.title, ...def.aliases, def.cloudwatch?.metricName ?? ''].some((a) => a && a.toLowerCase() === name)) return id;
  }
  return null;
}
