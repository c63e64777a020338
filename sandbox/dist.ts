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
  /** Kafka 4.x logs through log4j2; 3.9 through reload4j (log4j 1 API). */
  logging: 'log4j2' | 'log4j1';
  classpath: string;
}

const isV4 = (version: string) => version.startsWith('4.');

function pomFor(version: string): string {
  const dep = (g: string, a: string, v: string) =>
    `<dependency><groupId>${g}</groupId><artifactId>${a}</artifactId><version>${v}</version></dependency>`;
  // Kafka's own release tarball ships one slf4j binding; the Maven artifacts ship none.
  const logging = isV4(version)
    ? dep('org.apache.logging.log4j', 'log4j-slf4j-impl', '2.24.3')
    : dep('org.slf4j', 'slf4j-reload4j', '1.7.36') + dep('ch.qos.reload4j', 'reload4j', '1.2.25');
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
