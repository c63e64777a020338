// Fetches Apache Kafka's jars from Maven Central (the only place we may
// download from) into a cache outside the repo, once per version.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { SandboxSettings } from './layout.ts';

const exec = promisify(execFile);

export interface KafkaDist {
  version: string;
  libsDir: string;
  /** Kafka 4.x logs through log4j2; 3.9 through reload4j, 2.8 through log4j 1.2 (both the log4j 1 API). */
  logging: 'log4j2' | 'log4j1';
  classpath: string;
}

const isV4 = (version: string) => version.startsWith('4.');

/**
 * The slf4j binding Kafka's release tarball ships, which its Maven artifacts
 * leave out on 4.x: log4j-slf4j-impl at the version of the log4j-core that
 * kafka-tools brings (a mismatched log4j-api breaks logging). 3.9's kafka-tools
 * brings slf4j-reload4j and 2.8's slf4j-log4j12 with log4j 1.2.17 themselves.
 * ZooKeeper (3.8.4 under 3.9, 3.5.9 under 2.8) comes with kafka_2.13.
 */
export function loggingDeps(version: string): [group: string, artifact: string, version: string][] {
  if (isV4(version)) return [['org.apache.logging.log4j', 'log4j-slf4j-impl', version === '4.1.1' ? '2.24.3' : '2.25.5']];
  if (version.startsWith('3.')) return [['org.slf4j', 'slf4j-reload4j', '1.7.36'], ['ch.qos.reload4j', 'reload4j', '1.2.25']];
  return [];
}

function pomFor(version: string): string {
  const dep = (g: string, a: string, v: string) =>
    `<dependency><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version></dependency>`;
  const logging = loggingDeps(version).map(([g, a, v]) => dep(g, a, v)).join('');
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafka-responder</groupId><artifactId>kafka-dist</artifactId><version>${version}</version><packaging>pom</packaging>
  <dependencies>
    ${dep('org.apache.kafka', 'kafka_2.13', version)}
    ${dep('org.apache.kafka', 'kafka-tools', version)}
    ${logging}
  </dependencies>
</project>
`;
}

export async function requireCommand(cmd: string, args: string[], fix: string): Promise<string> {
  try {
    const { stdout, stderr } = await exec(cmd, args, { timeout: 30_000 });
    return `${stdout}${stderr}`;
  } catch {
    throw new Error(`\`${cmd}\` is not available. ${fix}`);
  }
}

export async function checkJava(): Promise<void> {
  const out = await requireCommand('java', ['-version'], 'Install Java 17 (e.g. `apt-get install openjdk-17-jre-headless`) and put `java` on PATH.');
  const major = /version "(\d+)/.exec(out)?.[1];
  if (major && Number(major) < 17) throw new Error(`Java ${major} found; Kafka 4 needs Java 17 or newer.`);
}

export async function ensureKafkaDist(s: SandboxSettings, log: (m: string) => void = () => {}): Promise<KafkaDist> {
  const root = join(s.cacheDir, `kafka-${s.kafkaVersion}`);
  const libsDir = join(root, 'libs');
  const marker = join(root, '.complete');
  if (!existsSync(marker)) {
    await requireCommand('mvn', ['-v'], 'Install Apache Maven (e.g. `apt-get install maven`): the sandbox fetches Kafka from Maven Central with it.');
    log(`fetching Apache Kafka ${s.kafkaVersion} from Maven Central into ${root} ...`);
    await rm(libsDir, { recursive: true, force: true });
    await mkdir(root, { recursive: true });
    await writeFile(join(root, 'pom.xml'), pomFor(s.kafkaVersion));
    try {
      await exec('mvn', ['-q', '-B', '-f', join(root, 'pom.xml'), 'dependency:copy-dependencies', `-DoutputDirectory=${libsDir}`], {
        timeout: 15 * 60_000,
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string; message: string };
      const tail = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
      throw new Error(`Maven could not fetch Kafka ${s.kafkaVersion}:\n${tail || e.message}`);
    }
    const jars = await readdir(libsDir);
    if (!jars.some((j) => j.startsWith('kafka_2.13-'))) throw new Error(`Maven finished but ${libsDir} holds no kafka_2.13 jar`);
    await writeFile(marker, new Date().toISOString());
  }
  return {
    version: s.kafkaVersion,
    libsDir,
    logging: isV4(s.kafkaVersion) ? 'log4j2' : 'log4j1',
    classpath: join(libsDir, '*'),
  };
}

/** The Prometheus JMX exporter's javaagent (Maven Central), the one `KR_SANDBOX_METRICS=1` starts every Kafka node with. */
export const JMX_EXPORTER_VERSION = '1.0.1';

export async function ensureJmxExporter(s: SandboxSettings, log: (m: string) => void = () => {}): Promise<string> {
  const dir = join(s.cacheDir, `jmx-exporter-${JMX_EXPORTER_VERSION}`);
  const jar = join(dir, `jmx_prometheus_javaagent-${JMX_EXPORTER_VERSION}.jar`);
  if (existsSync(jar)) return jar;
  await requireCommand('mvn', ['-v'], 'Install Apache Maven (e.g. `apt-get install maven`): the sandbox fetches the JMX exporter from Maven Central with it.');
  log(`fetching the Prometheus JMX exporter ${JMX_EXPORTER_VERSION} from Maven Central into ${dir} ...`);
  await mkdir(dir, { recursive: true });
  try {
    await exec('mvn', ['-q', '-B', 'dependency:copy', `-Dartifact=io.prometheus.jmx:jmx_prometheus_javaagent:${JMX_EXPORTER_VERSION}`, `-DoutputDirectory=${dir}`], {
      timeout: 10 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
      cwd: dir,
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`Maven could not fetch the JMX exporter ${JMX_EXPORTER_VERSION}:\n${`${e.stdout ?? ''}${e.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n') || e.message}`);
  }
  if (!existsSync(jar)) throw new Error(`Maven finished but ${jar} is not there`);
  return jar;
}
