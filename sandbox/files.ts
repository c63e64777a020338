// The files a broker host has: server.properties, logging config, and the CLI
// wrappers with the release tarball's names.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KafkaDist } from './dist.ts';
import { BROKER_IDS, CONTROLLER_ID, binDir, controllerBootstrapServers, hasControllerQuorum, nodeLayout, type NodeLayout, type SandboxSettings } from './layout.ts';
import { SCRAM_MECHANISM, type SecurityMaterial } from './security.ts';

/**
 * The SASL_PLAINTEXT (SCRAM-SHA-512) and SSL listeners' settings. Clients only:
 * inter-broker traffic stays on PLAINTEXT, so no broker needs a SCRAM login.
 */
function securityListenerProperties(node: NodeLayout, sec: SecurityMaterial): string[] {
  const ssl = 'listener.name.ssl.';
  const sasl = 'listener.name.sasl_plaintext.';
  return [
    `${sasl}sasl.enabled.mechanisms=${SCRAM_MECHANISM}`,
    // Server side of SCRAM needs the login module but no user of its own.
    `${sasl}${SCRAM_MECHANISM.toLowerCase()}.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;`,
    `${ssl}ssl.keystore.type=PKCS12`,
    `${ssl}ssl.keystore.location=${sec.paths.brokerKeystore(node.id)}`,
    `${ssl}ssl.keystore.password=${sec.secrets.storePassword}`,
    `${ssl}ssl.key.password=${sec.secrets.storePassword}`,
    `${ssl}ssl.truststore.type=PKCS12`,
    `${ssl}ssl.truststore.location=${sec.paths.truststore}`,
    `${ssl}ssl.truststore.password=${sec.secrets.storePassword}`,
    `${ssl}ssl.client.auth=none`,
  ];
}

/** Without `security` (older callers) a broker has its PLAINTEXT listener only. */
export function serverProperties(s: SandboxSettings, node: NodeLayout, security?: SecurityMaterial): string {
  const first = nodeLayout(s, CONTROLLER_ID);
  // A dynamic quorum (4.x) is found through its bootstrap servers, its voters live in the metadata log
  // (formatted with --initial-controllers); 3.9 keeps the static voter list of one controller.
  const voters = hasControllerQuorum(s)
    ? `controller.quorum.bootstrap.servers=${controllerBootstrapServers(s)}`
    : `controller.quorum.voters=${CONTROLLER_ID}@127.0.0.1:${first.port}`;
  // ZooKeeper mode writes none of KRaft's keys: 2.8 and 3.9 brokers in ZooKeeper mode reject or warn on them.
  const common =
    s.mode === 'zookeeper'
      ? [`broker.id=${node.id}`, `zookeeper.connect=127.0.0.1:${first.port}`, `log.dirs=${node.dataDir}`]
      : [`node.id=${node.id}`, voters, 'controller.listener.names=CONTROLLER', `log.dirs=${node.dataDir}`];
  if (node.role === 'controller') {
    return [
      `# kafka-responder sandbox: dedicated KRaft controller ${node.id}`,
      'process.roles=controller',
      ...common,
      `listeners=CONTROLLER://127.0.0.1:${node.port}`,
      'listener.security.protocol.map=CONTROLLER:PLAINTEXT',
      'num.network.threads=2',
      'num.io.threads=2',
      '',
    ].join('\n');
  }
  const listeners = [`PLAINTEXT://127.0.0.1:${node.port}`];
  if (security) listeners.push(`SASL_PLAINTEXT://127.0.0.1:${node.saslPort}`, `SSL://127.0.0.1:${node.tlsPort}`);
  const protocols = [...(s.mode === 'kraft' ? ['CONTROLLER:PLAINTEXT'] : []), 'PLAINTEXT:PLAINTEXT', ...(security ? ['SASL_PLAINTEXT:SASL_PLAINTEXT', 'SSL:SSL'] : [])];
  return [
    `# kafka-responder sandbox: broker ${node.id} (${s.mode === 'zookeeper' ? 'ZooKeeper' : 'KRaft'} mode)`,
    ...(s.mode === 'kraft' ? ['process.roles=broker'] : []),
    ...common,
    `listeners=${listeners.join(',')}`,
    // Each listener advertises itself, so a client bootstrapped over SCRAM or TLS stays on it.
    `advertised.listeners=${listeners.join(',')}`,
    'inter.broker.listener.name=PLAINTEXT',
    `listener.security.protocol.map=${protocols.join(',')}`,
    ...(security ? securityListenerProperties(node, security) : []),
    'num.partitions=3',
    `default.replication.factor=${BROKER_IDS.length}`,
    `offsets.topic.replication.factor=${BROKER_IDS.length}`,
    'offsets.topic.num.partitions=50',
    `transaction.state.log.replication.factor=${BROKER_IDS.length}`,
    'transaction.state.log.min.isr=2',
    'min.insync.replicas=1',
    // Kafka's default since 0.11, and the setting of incident 1.
    'unclean.leader.election.enable=false',
    'auto.create.topics.enable=false',
    'group.initial.rebalance.delay.ms=0',
    // A small machine: fewer threads, a small cleaner buffer, a faster ISR shrink.
    'num.network.threads=2',
    'num.io.threads=2',
    'num.recovery.threads.per.data.dir=1',
    'log.cleaner.threads=1',
    'log.cleaner.dedupe.buffer.size=16777216',
    'replica.lag.time.max.ms=10000',
    // Retention runs every few seconds (default 5 min), so a small retention.ms deletes segments while a test waits.
    'log.retention.check.interval.ms=2000',
    '',
  ].join('\n');
}

/**
 * The ZooKeeper server of ZooKeeper mode, standalone, on loopback. Its session
 * timeout stays Kafka's default (18 s): a killed broker, the controller too, is
 * noticed only once its session expires, as on a production cluster.
 */
export function zookeeperProperties(node: NodeLayout): string {
  return [
    '# kafka-responder sandbox: ZooKeeper server (standalone)',
    `dataDir=${node.dataDir}`,
    `clientPort=${node.port}`,
    'clientPortAddress=127.0.0.1',
    'tickTime=2000',
    'maxClientCnxns=0',
    // Its embedded admin server would take port 8080.
    'admin.enableServer=false',
    '4lw.commands.whitelist=srvr,ruok,stat',
    '',
  ].join('\n');
}

/** ZooKeeper logs through the log4j 1 API on both lines that have it (3.8 via reload4j, 3.5 via log4j 1.2). */
export function zookeeperLog4jProperties(): string {
  return [
    'log4j.rootLogger=INFO, zkAppender',
    'log4j.appender.zkAppender=org.apache.log4j.DailyRollingFileAppender',
    "log4j.appender.zkAppender.DatePattern='.'yyyy-MM-dd-HH",
    'log4j.appender.zkAppender.File=${kafka.logs.dir}/zookeeper.log',
    'log4j.appender.zkAppender.layout=org.apache.log4j.PatternLayout',
    'log4j.appender.zkAppender.layout.ConversionPattern=[%d] %p %m (%c)%n',
    '',
  ].join('\n');
}

/** Kafka's own layout and pattern: server.log, controller.log, state-change.log, log-cleaner.log. */
export function log4j2Xml(): string {
  const file = (name: string, fileName: string) => `
    <RollingFile name="${name}" fileName="\${sys:kafka.logs.dir}/${fileName}" filePattern="\${sys:kafka.logs.dir}/${fileName}.%d{yyyy-MM-dd-HH}">
      <PatternLayout pattern="[%d] %p %m (%c)%n"/>
      <Policies><TimeBasedTriggeringPolicy/></Policies>
    </RollingFile>`;
  const logger = (name: string, level: string, ref: string) =>
    `<Logger name="${name}" level="${level}" additivity="false"><AppenderRef ref="${ref}"/></Logger>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Configuration>
  <Appenders>
    <Console name="STDOUT"><PatternLayout pattern="[%d] %p %m (%c)%n"/></Console>${file('kafkaAppender', 'server.log')}${file('stateChangeAppender', 'state-change.log')}${file('controllerAppender', 'controller.log')}${file('cleanerAppender', 'log-cleaner.log')}
  </Appenders>
  <Loggers>
    <Root level="INFO"><AppenderRef ref="STDOUT"/><AppenderRef ref="kafkaAppender"/></Root>
    ${logger('kafka.controller', 'TRACE', 'controllerAppender')}
    ${logger('org.apache.kafka.controller', 'INFO', 'controllerAppender')}
    ${logger('kafka.log.LogCleaner', 'INFO', 'cleanerAppender')}
    ${logger('org.apache.kafka.storage.internals.log.LogCleaner', 'INFO', 'cleanerAppender')}
    ${logger('org.apache.kafka.storage.internals.log.LogCleanerManager', 'INFO', 'cleanerAppender')}
    ${logger('state.change.logger', 'INFO', 'stateChangeAppender')}
    ${logger('kafka.request.logger', 'WARN', 'kafkaAppender')}
    <Logger name="org.apache.kafka.raft" level="INFO"/>
    <Logger name="kafka.network.RequestChannel$" level="WARN"/>
  </Loggers>
</Configuration>
`;
}

/** Same files for Kafka 3.9, which logs through reload4j (log4j 1.x API). */
export function log4jProperties(): string {
  const file = (name: string, fileName: string) => [
    `log4j.appender.${name}=org.apache.log4j.DailyRollingFileAppender`,
    `log4j.appender.${name}.DatePattern='.'yyyy-MM-dd-HH`,
    `log4j.appender.${name}.File=\${kafka.logs.dir}/${fileName}`,
    `log4j.appender.${name}.layout=org.apache.log4j.PatternLayout`,
    `log4j.appender.${name}.layout.ConversionPattern=[%d] %p %m (%c)%n`,
  ];
  return [
    'log4j.rootLogger=INFO, stdout, kafkaAppender',
    'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
    'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
    'log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n',
    ...file('kafkaAppender', 'server.log'),
    ...file('stateChangeAppender', 'state-change.log'),
    ...file('controllerAppender', 'controller.log'),
    ...file('cleanerAppender', 'log-cleaner.log'),
    'log4j.logger.kafka.controller=TRACE, controllerAppender',
    'log4j.additivity.kafka.controller=false',
    'log4j.logger.kafka.log.LogCleaner=INFO, cleanerAppender',
    'log4j.additivity.kafka.log.LogCleaner=false',
    'log4j.logger.state.change.logger=INFO, stateChangeAppender',
    'log4j.additivity.state.change.logger=false',
    '',
  ].join('\n');
}

const toolsLog4j2 = `<?xml version="1.0" encoding="UTF-8"?>
<Configuration>
  <Appenders><Console name="STDERR" target="SYSTEM_ERR"><PatternLayout pattern="[%d] %p %m (%c)%n"/></Console></Appenders>
  <Loggers><Root level="WARN"><AppenderRef ref="STDERR"/></Root></Loggers>
</Configuration>
`;
const toolsLog4j = 'log4j.rootLogger=WARN, stderr\nlog4j.appender.stderr=org.apache.log4j.ConsoleAppender\nlog4j.appender.stderr.Target=System.err\nlog4j.appender.stderr.layout=org.apache.log4j.PatternLayout\nlog4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n\n';

/**
 * Script name → main class, as each line's bin/ scripts run them. 2.8 keeps its
 * tools in kafka_2.13 (kafka.admin.*, kafka.tools.*); 3.x moved most of them to
 * kafka-tools (org.apache.kafka.tools.*); 4.x moved the console producer too.
 */
export function toolClasses(version: string): Record<string, string> {
  const v4 = version.startsWith('4.');
  // 4.4 has ConfigCommand and DumpLogSegments in kafka-tools too (4.1 still in kafka_2.13; 4.2 and 4.3 not run here).
  const v44 = v4 && !/^4\.[01]\./.test(version);
  if (version.startsWith('2.')) {
    return {
      'kafka-topics.sh': 'kafka.admin.TopicCommand',
      'kafka-configs.sh': 'kafka.admin.ConfigCommand',
      'kafka-leader-election.sh': 'kafka.admin.LeaderElectionCommand',
      'kafka-reassign-partitions.sh': 'kafka.admin.ReassignPartitionsCommand',
      'kafka-log-dirs.sh': 'kafka.admin.LogDirsCommand',
      'kafka-dump-log.sh': 'kafka.tools.DumpLogSegments',
      'kafka-consumer-groups.sh': 'kafka.admin.ConsumerGroupCommand',
      'kafka-storage.sh': 'kafka.tools.StorageTool',
      'kafka-console-producer.sh': 'kafka.tools.ConsoleProducer',
      'kafka-console-consumer.sh': 'kafka.tools.ConsoleConsumer',
      // 2.8 has no kafka-get-offsets.sh; its GetOffsetShell takes --broker-list (the wrapper translates).
      'kafka-get-offsets.sh': 'kafka.tools.GetOffsetShell',
      'kafka-features.sh': 'kafka.admin.FeatureCommand',
      'zookeeper-shell.sh': 'org.apache.zookeeper.ZooKeeperMainWithTlsSupportForKafka',
    };
  }
  return {
    'kafka-topics.sh': 'org.apache.kafka.tools.TopicCommand',
    'kafka-configs.sh': v44 ? 'org.apache.kafka.tools.ConfigCommand' : 'kafka.admin.ConfigCommand',
    'kafka-leader-election.sh': 'org.apache.kafka.tools.LeaderElectionCommand',
    'kafka-reassign-partitions.sh': 'org.apache.kafka.tools.reassign.ReassignPartitionsCommand',
    'kafka-log-dirs.sh': 'org.apache.kafka.tools.LogDirsCommand',
    'kafka-dump-log.sh': v44 ? 'org.apache.kafka.tools.DumpLogSegments' : 'kafka.tools.DumpLogSegments',
    'kafka-consumer-groups.sh': 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
    'kafka-storage.sh': 'kafka.tools.StorageTool',
    'kafka-console-producer.sh': v4 ? 'org.apache.kafka.tools.ConsoleProducer' : 'kafka.tools.ConsoleProducer',
    'kafka-console-consumer.sh': 'org.apache.kafka.tools.consumer.ConsoleConsumer',
    'kafka-get-offsets.sh': 'org.apache.kafka.tools.GetOffsetShell',
    'kafka-features.sh': 'org.apache.kafka.tools.FeatureCommand',
    // KIP-664 (3.0+): describe-producers, list, describe, find-hanging, abort.
    'kafka-transactions.sh': 'org.apache.kafka.tools.TransactionsCommand',
    // describe --status / --replication; add-controller and remove-controller (3.9+, dynamic quorum).
    'kafka-metadata-quorum.sh': 'org.apache.kafka.tools.MetadataQuorumCommand',
    ...(v4 ? {} : { 'zookeeper-shell.sh': 'org.apache.zookeeper.ZooKeeperMainWithTlsSupportForKafka' }),
  };
}

/** Options a line's tool spells differently from the release the tests and users write for. */
const optionRenames = (version: string, script: string): Record<string, string> =>
  version.startsWith('2.') && script === 'kafka-get-offsets.sh' ? { '--bootstrap-server': '--broker-list' } : {};

/** JVM options for the short-lived CLI tools: small heap, fast start on a 2-core machine. */
export const TOOL_JVM_OPTS = ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xshare:auto', '-Djava.awt.headless=true'];

export async function writeToolWrappers(s: SandboxSettings, dist: KafkaDist): Promise<string> {
  const dir = binDir(s);
  const confDir = join(s.home, 'config');
  await mkdir(dir, { recursive: true });
  await mkdir(confDir, { recursive: true });
  const loggingOpt =
    dist.logging === 'log4j2'
      ? `-Dlog4j2.configurationFile=${join(confDir, 'tools-log4j2.xml')}`
      : `-Dlog4j.configuration=file:${join(confDir, 'tools-log4j.properties')}`;
  await writeFile(join(confDir, dist.logging === 'log4j2' ? 'tools-log4j2.xml' : 'tools-log4j.properties'), dist.logging === 'log4j2' ? toolsLog4j2 : toolsLog4j);
  for (const [script, mainClass] of Object.entries(toolClasses(dist.version))) {
    const renames = Object.entries(optionRenames(dist.version, script));
    const body = [
      '#!/usr/bin/env bash',
      `# ${script} of Apache Kafka ${dist.version}, as the release tarball names it; generated by kafka-responder's sandbox.`,
      ...(renames.length
        ? ['args=()', `for a in "$@"; do case "$a" in ${renames.map(([from, to]) => `${from}) a=${to} ;;`).join(' ')} esac; args+=("$a"); done`, 'set -- "${args[@]}"']
        : []),
      `exec "\${JAVA:-java}" ${TOOL_JVM_OPTS.join(' ')} \${KAFKA_OPTS:-} "${loggingOpt}" -cp "${dist.classpath}" ${mainClass} "$@"`,
      '',
    ].join('\n');
    const path = join(dir, script);
    await writeFile(path, body);
    await chmod(path, 0o755);
  }
  return dir;
}

/**
 * Rules for the JMX exporter, naming Kafka's MBeans the way the exporter's
 * published Kafka example does (lower-case; `*PerSec` meters as `_total`
 * counters; gauges as kafka_<domain>_<type>_<name>, extra keys as labels),
 * so what lib/diagnose/metrics/catalog.ts reads on the sandbox is what it reads
 * on a production Prometheus. Only the kafka.* domains are exported.
 */
export function jmxExporterRules(): string {
  return `lowercaseOutputName: true
lowercaseOutputLabelNames: false
# Only the MBeans the diagnosis reads: a scrape stays small and quick on a loaded machine.
includeObjectNames:
  - "kafka.server:type=ReplicaManager,*"
  - "kafka.server:type=KafkaRequestHandlerPool,*"
  - "kafka.server:type=BrokerTopicMetrics,*"
  - "kafka.controller:type=KafkaController,*"
  - "kafka.controller:type=ControllerStats,*"
  - "kafka.network:type=SocketServer,*"
  - "kafka.log:type=Log,name=Size,*"
rules:
  # meters named ...PerSec, by their cumulative count, with up to two extra keys as labels
  - pattern: 'kafka.(\\w+)<type=(.+), name=(.+)PerSec\\w*, (.+)=(.+), (.+)=(.+)><>Count'
    name: kafka_$1_$2_$3_total
    type: COUNTER
    labels: { "$4": "$5", "$6": "$7" }
  - pattern: 'kafka.(\\w+)<type=(.+), name=(.+)PerSec\\w*, (.+)=(.+)><>Count'
    name: kafka_$1_$2_$3_total
    type: COUNTER
    labels: { "$4": "$5" }
  - pattern: 'kafka.(\\w+)<type=(.+), name=(.+)PerSec\\w*><>Count'
    name: kafka_$1_$2_$3_total
    type: COUNTER
  # gauges, with up to two extra keys as labels
  - pattern: 'kafka.(\\w+)<type=(.+), name=(.+), (.+)=(.+), (.+)=(.+)><>Value'
    name: kafka_$1_$2_$3
    type: GAUGE
    labels: { "$4": "$5", "$6": "$7" }
  - pattern: 'kafka.(\\w+)<type=(.+), name=(.+), (.+)=(.+)><>Value'
    name: kafka_$1_$2_$3
    type: GAUGE
    labels: { "$4": "$5" }
  - pattern: 'kafka.(\\w+)<type=(.+), name=(.+)><>Value'
    name: kafka_$1_$2_$3
    type: GAUGE
  # other meters and timers (RequestHandlerAvgIdlePercent among them) by their count
  - pattern: 'kafka.(\\w+)<type=(.+), name=(.+)><>Count'
    name: kafka_$1_$2_$3_count
    type: COUNTER
`;
}
