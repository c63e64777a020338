// `npx kafka-responder sandbox <subcommand>`
import { parseArgs } from 'node:util';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  BROKER_IDS,
  DEFAULT_KAFKA_VERSION,
  NEWEST_ZOOKEEPER_VERSION,
  QUORUM_CONTROLLER_IDS,
  SUPPORTED_KAFKA_VERSIONS,
  controllerBootstrapServers,
  lineName,
  nodeIds,
  nodeLayout,
  sandboxSettings,
  type SandboxSettings,
} from './layout.ts';
import { Sandbox } from './cluster.ts';
import { SCENARIOS, runScenario } from './scenarios.ts';

const USAGE = `usage: kafka-responder sandbox <command>
  install            fetch Apache Kafka's jars from Maven Central (up does it when needed)
  up [--zookeeper]   start the controllers (4.x: ${QUORUM_CONTROLLER_IDS.join(', ')}, a dynamic quorum; 3.9: 100), then
                     brokers ${BROKER_IDS.join(', ')} (no-op when running);
                     --zookeeper: ZooKeeper mode, a ZooKeeper server (100) in the controller's place
                     (Kafka ${NEWEST_ZOOKEEPER_VERSION} unless KAFKA_VERSION says 2.8.2); later commands keep the mode
  down [--purge]     stop every sandbox process (--purge: also delete its data)
  status [--json]    per node: running, pid, port, host dir
  env                shell exports: KAFKA_BOOTSTRAP_SERVERS, KAFKA_BIN, KR_SANDBOX_HOME; in KRaft mode
                     KAFKA_CONTROLLER_BOOTSTRAP_SERVERS (kafka-metadata-quorum.sh --bootstrap-controller); KAFKA_METRICS_TARGETS
                     (JMX exporters' host:port, with KR_SANDBOX_METRICS=1); once up also
                     KAFKA_SCRAM_BOOTSTRAP_SERVERS, KAFKA_SCRAM_MECHANISM, KAFKA_SCRAM_USERNAME,
                     KAFKA_SCRAM_PASSWORD, KAFKA_TLS_BOOTSTRAP_SERVERS, KAFKA_TLS_CA
  stop <id>          graceful stop (controlled shutdown); <id>: a broker or a controller
  kill <id>          SIGKILL
  start <id>         start one node
  wipe <id>          delete a stopped node's data. A controller of the 4.x quorum, while the other two
                     run: its next start formats it with --no-initial-controllers, starts it as an
                     observer, then remove-controller (old directory) and add-controller (new one)
  stop-timeout <id> <seconds|none>
                     record a systemd unit with TimeoutStopSec=<seconds> in the broker's host dir
                     (systemd/kafka.service, what the host probe reads there); none removes it
  scenario <name>    reproduce an incident: ${Object.keys(SCENARIOS).join(', ')}

env: KR_SANDBOX_HOME, KR_SANDBOX_PORT_BASE (default 19090), KR_KAFKA_CACHE,
     KAFKA_VERSION (${SUPPORTED_KAFKA_VERSIONS.join(' | ')}; default ${DEFAULT_KAFKA_VERSION}, or what the sandbox already runs),
     KR_SANDBOX_MODE (kraft | zookeeper, as --zookeeper; 2.8.2 runs in ZooKeeper mode only)`;

function brokerArg(arg: string | undefined): number {
  if (!arg || !/^\d+$/.test(arg)) throw new Error(`a broker id is required (${BROKER_IDS.join(', ')})`);
  return Number(arg);
}

/** A broker's or a controller's id, and its name for messages ("broker 2", "controller 101"). */
function nodeArg(s: SandboxSettings, arg: string | undefined): { id: number; name: string } {
  if (!arg || !/^\d+$/.test(arg)) throw new Error(`a node id is required (${nodeIds(s).join(', ')})`);
  const id = Number(arg);
  return { id, name: `${nodeIds(s).includes(id) ? nodeLayout(s, id).role : 'node'} ${id}` };
}

function parseSandboxArgs(
  argv: string[],
): { cmd: string | undefined; arg: string | undefined; rest: string[]; purge: boolean; json: boolean; zookeeper: boolean; help: boolean } | { error: string } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: true,
      options: {
        purge: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        zookeeper: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    const [cmd, arg, ...rest] = positionals;
    return { cmd, arg, rest, purge: values.purge, json: values.json, zookeeper: values.zookeeper, help: values.help };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

export async function run(argv: string[]): Promise<number> {
  const args = parseSandboxArgs(argv);
  if ('error' in args) {
    console.error(`${args.error}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const { cmd, arg, rest } = args;
  if (args.zookeeper && cmd !== 'up' && cmd !== 'install') {
    console.error(`--zookeeper goes with up (or install); later commands keep the sandbox's mode\n\n${USAGE}`);
    return 2;
  }
  const sandbox = new Sandbox(sandboxSettings(args.zookeeper ? { ...process.env, KR_SANDBOX_MODE: 'zookeeper' } : process.env));
  switch (cmd) {
    case 'install':
      await sandbox.install();
      return 0;
    case 'up':
      await sandbox.up();
      return 0;
    case 'down':
      await sandbox.down({ purge: args.purge });
      console.error('sandbox stopped');
      return 0;
    case 'status': {
      const statuses = await sandbox.status();
      if (args.json) {
        console.log(JSON.stringify({ home: sandbox.settings.home, kafkaVersion: sandbox.settings.kafkaVersion, mode: sandbox.settings.mode, nodes: statuses }, null, 2));
      } else {
        console.log(`sandbox ${sandbox.settings.home}: ${lineName(sandbox.settings)}`);
        for (const s of statuses) {
          const name = `${s.role} ${s.id}`;
          console.log(`${name.padEnd(15)} ${(s.running ? 'running' : 'stopped').padEnd(8)} pid ${String(s.pid ?? '-').padEnd(8)} port ${s.port}  ${s.hostDir}`);
        }
      }
      return statuses.every((s) => s.running) ? 0 : 3;
    }
    case 'env': {
      console.log(`export KAFKA_BOOTSTRAP_SERVERS=${sandbox.bootstrapServers}`);
      console.log(`export KAFKA_BIN=${sandbox.binDir}`);
      console.log(`export KR_SANDBOX_HOME=${sandbox.settings.home}`);
      if (sandbox.settings.mode === 'kraft') console.log(`export KAFKA_CONTROLLER_BOOTSTRAP_SERVERS=${controllerBootstrapServers(sandbox.settings)}`);
      // The SCRAM and TLS listeners' details live in cluster.json (written by `up`).
      // Sandbox-only names, so they never switch the CLI's own KAFKA_SASL_* / KAFKA_SSL_* auth on.
      const cluster = await sandbox.readClusterFile();
      if (cluster?.scram) {
        console.log(`export KAFKA_SCRAM_BOOTSTRAP_SERVERS=${cluster.scram.bootstrapServers}`);
        console.log(`export KAFKA_SCRAM_MECHANISM=${cluster.scram.mechanism}`);
        console.log(`export KAFKA_SCRAM_USERNAME=${cluster.scram.username}`);
        console.log(`export KAFKA_SCRAM_PASSWORD=${cluster.scram.password}`);
      }
      if (cluster?.metrics) console.log(`export KAFKA_METRICS_TARGETS=${cluster.metrics.targets}`);
      if (cluster?.tls) {
        console.log(`export KAFKA_TLS_BOOTSTRAP_SERVERS=${cluster.tls.bootstrapServers}`);
        console.log(`export KAFKA_TLS_CA=${cluster.tls.caPemFile}`);
      }
      return 0;
    }
    case 'stop': {
      const n = nodeArg(sandbox.settings, arg);
      console.error(`${n.name}: ${await sandbox.stop(n.id)}`);
      return 0;
    }
    case 'kill': {
      const n = nodeArg(sandbox.settings, arg);
      console.error(`${n.name}: ${await sandbox.kill(n.id)}`);
      return 0;
    }
    case 'start': {
      const n = nodeArg(sandbox.settings, arg);
      await sandbox.start(n.id);
      console.error(`${n.name}: started`);
      return 0;
    }
    case 'wipe': {
      const n = nodeArg(sandbox.settings, arg);
      await sandbox.wipe(n.id);
      console.error(`${n.name}: data wiped${n.name.startsWith('controller') ? '; its next start rejoins the quorum' : ''}`);
      return 0;
    }
    case 'stop-timeout': {
      const id = brokerArg(arg);
      const value = rest[0];
      const file = stopTimeoutUnitFile(id);
      if (value === 'none') {
        await rm(file, { force: true });
        console.error(`broker ${id}: no systemd unit recorded`);
        return 0;
      }
      if (!value || !/^\d{1,6}$/.test(value)) {
        console.error(`stop-timeout needs a number of seconds or "none"\n\n${USAGE}`);
        return 2;
      }
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, `[Unit]\nDescription=Apache Kafka broker ${id} (sandbox)\n\n[Service]\nTimeoutStopSec=${value}\n`);
      console.error(`broker ${id}: systemd unit recorded with TimeoutStopSec=${value} (${file})`);
      return 0;
    }
    case 'scenario': {
      if (!arg || !(arg in SCENARIOS)) {
        console.error(`unknown scenario ${arg ?? ''}; one of: ${Object.keys(SCENARIOS).join(', ')}`);
        return 2;
      }
      const result = await runScenario(sandbox, arg, rest);
      console.log(JSON.stringify(result, null, 2));
      return 0;
    }
    default:
      console.error(USAGE);
      return cmd ? 2 : 0;
  }
}

/** Where a sandbox broker's stand-in systemd unit lives (read by lib/hosts/probe-runner.ts probeArgs). */
export function stopTimeoutUnitFile(id: number): string {
  return `${nodeLayout(sandboxSettings(), id).hostDir}/systemd/kafka.service`;
}
