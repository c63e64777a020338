// The fixed scripts the bot may run on a broker host, one entry each: body
// (a .sh file beside this one, its one source: see script-text.ts), typed
// parameters with the pattern every value must match, and how each value
// reaches the script. The same entry makes
//   - the SSM Command document deployed with the stack (serverless.yml: the
//     ssm-documents plugin renders cloudFormationResources() at package
//     time): the worker may send only these documents, never AWS-RunShellScript;
//   - the parameters the SSM executor sends with it;
//   - what the local executor runs on a sandbox host directory: the body as
//     the document's last line runs it (bash -c, stdin empty), with the
//     arguments the document makes of the parameters (scriptArgs).
// Adding a script is one .sh file (or several joined, as the probe's
// PROBE_PARTS) and one entry in HOST_SCRIPTS.
import { HOST_PATH } from './host-paths.ts';
import { scriptText, type HostScriptFile } from './script-text.ts';
import { ScriptParameterError } from './script-errors.ts';

export interface ScriptParameter {
  /** Document parameter name (letters and digits); on the host the value is $SSM_<name>. */
  name: string;
  description: string;
  /**
   * Anchored regular expression every value must match: the document's
   * allowedPattern, and checked here before anything is sent or run. Plain
   * character classes, groups, `|` and `{m,n}` only, so SSM and JavaScript
   * read it the same way.
   */
  allowedPattern: string;
  /** Optional parameters default to "" and are then not passed at all. */
  optional?: boolean;
  /**
   * How the value reaches the script: one positional argument; `--flag value`;
   * or a comma-separated list, one positional argument per item.
   */
  pass: { as: 'positional' } | { as: 'option'; flag: string } | { as: 'list' };
}

export interface HostScript {
  /** Document name suffix: <stack>-<name>. */
  name: string;
  description: string;
  /** The script text (bash). */
  body: () => string;
  parameters: readonly ScriptParameter[];
}

export type ScriptParams = Record<string, string>;

export { isHostPath } from './host-paths.ts';

/** Paths on the host: one rule for every script (lib/hosts/host-paths.ts). */
const ABSOLUTE_PATH = HOST_PATH;
/** Kafka's topic rule (lib/kafka/names.ts TOPIC_NAME): 1-249 characters; "." and ".." are refused by the script. */
const TOPIC = '[a-zA-Z0-9._-]{1,249}';

/**
 * The probe's sources, in the order they run: probe.sh (arguments, helpers,
 * process facts) first, its report last. One script on the host: the parts
 * share variables and are joined here, never copied into a generated file.
 */
export const PROBE_PARTS = ['probe.sh', 'probe-dirs.sh', 'probe-logs.sh', 'probe-report.sh'] as const satisfies readonly HostScriptFile[];

/** The probe's text: its parts joined (each ends with a newline). */
export const loadProbeScript = (): string => PROBE_PARTS.map((part) => scriptText(part)).join('');


export const HOST_SCRIPTS = {
  probe: {
    name: 'probe',
    description: 'kafka-responder read-only host probe: broker process, log dirs, logs, limits, systemd unit; prints flat records',
    body: loadProbeScript,
    parameters: [
      { name: 'config', description: 'server.properties of the broker (a sandbox host); found from the process otherwise', allowedPattern: `^(${ABSOLUTE_PATH}\\.properties)?$`, optional: true, pass: { as: 'option', flag: '--config' } },
      { name: 'systemdUnit', description: "the broker's systemd unit when it cannot be found from the process", allowedPattern: '^([A-Za-z0-9@._:-]{1,200}\\.service)?$', optional: true, pass: { as: 'option', flag: '--systemd-unit' } },
      { name: 'unitFile', description: 'a systemd unit file to read TimeoutStopSec from where systemctl cannot answer (a sandbox host directory)', allowedPattern: `^(${ABSOLUTE_PATH}\\.service)?$`, optional: true, pass: { as: 'option', flag: '--unit-file' } },
      { name: 'pidFile', description: "the broker's pid file, where the host keeps one (a sandbox host directory): its process is checked before every command line is read", allowedPattern: `^(${ABSOLUTE_PATH}\\.pid)?$`, optional: true, pass: { as: 'option', flag: '--pid-file' } },
      { name: 'logBytes', description: 'newest bytes of server.log scanned', allowedPattern: '^([0-9]{1,10})?$', optional: true, pass: { as: 'option', flag: '--log-bytes' } },
      { name: 'scanDeadline', description: 'seconds after which log scans stop', allowedPattern: '^([0-9]{1,3})?$', optional: true, pass: { as: 'option', flag: '--scan-deadline' } },
    ],
  },
  'replica-data': {
    name: 'replica-data',
    description: "kafka-responder read-only: one partition's log end offset, checkpointed high watermark and size on this broker host",
    body: () => scriptText('replica-data.sh'),
    parameters: [
      { name: 'kafkaBin', description: "Kafka's bin directory (kafka-dump-log.sh)", allowedPattern: `^${ABSOLUTE_PATH}$`, pass: { as: 'positional' } },
      { name: 'topic', description: 'topic name (Kafka rules: 1-249 of a-z A-Z 0-9 . _ -)', allowedPattern: `^${TOPIC}$`, pass: { as: 'positional' } },
      { name: 'partition', description: 'partition number', allowedPattern: '^[0-9]{1,7}$', pass: { as: 'positional' } },
      { name: 'logDirs', description: "the broker's log.dirs, comma separated", allowedPattern: `^${ABSOLUTE_PATH}(,${ABSOLUTE_PATH}){0,63}$`, pass: { as: 'list' } },
    ],
  },
  'service-control': {
    name: 'service-control',
    description: "kafka-responder broker service control: graceful stop (never SIGKILL), start, or status of the broker's service",
    body: () => scriptText('service-control.sh'),
    parameters: [
      { name: 'action', description: 'stop, start, release (remove the stop drop-in) or status', allowedPattern: '^(stop|start|release|status)$', pass: { as: 'positional' } },
      { name: 'unit', description: "the broker's systemd unit", allowedPattern: '^[A-Za-z0-9][A-Za-z0-9@_.-]{0,62}$', pass: { as: 'positional' } },
      { name: 'logsDir', description: "the broker's log4j directory (server.log), or - when unknown", allowedPattern: `^(-|${ABSOLUTE_PATH})$`, pass: { as: 'positional' } },
      { name: 'logDirs', description: "the broker's log.dirs, comma separated (clean-shutdown markers)", allowedPattern: `^(${ABSOLUTE_PATH}(,${ABSOLUTE_PATH}){0,15})?$`, optional: true, pass: { as: 'list' } },
    ],
  },
} as const satisfies Record<string, HostScript>;

export type HostScriptName = keyof typeof HOST_SCRIPTS;
export type HostScripts = Readonly<Record<string, HostScript>>;

export { ScriptParameterError } from './script-errors.ts';

/** The registry entry for a run, refusing an unknown script. */
export function scriptOf(scripts: HostScripts, name: string): HostScript {
  const script = Object.hasOwn(scripts, name) ? scripts[name] : undefined;
  if (!script) throw new ScriptParameterError(`no host script "${name}" (known: ${Object.keys(scripts).join(', ')})`);
  return script;
}

/**
 * Every parameter of `script` with its value ("" for an optional one not
 * given), each checked against its pattern; unknown names are refused.
 */
export function checkParams(script: HostScript, params: ScriptParams): ScriptParams {
  const known = new Set(script.parameters.map((p) => p.name));
  for (const name of Object.keys(params)) {
    if (!known.has(name)) throw new ScriptParameterError(`${script.name}: no parameter "${name}"`);
  }
  const out: ScriptParams = {};
  for (const p of script.parameters) {
    const value = params[p.name] ?? '';
    if (value === '' && !p.optional) throw new ScriptParameterError(`${script.name}: parameter "${p.name}" is required`);
    if (!new RegExp(p.allowedPattern).test(value)) {
      throw new ScriptParameterError(`${script.name}: refusing ${p.name}=${JSON.stringify(value.slice(0, 80))}: it must match ${p.allowedPattern}`);
    }
    out[p.name] = value;
  }
  return out;
}

/** The script's arguments for these (checked) parameters; what the document's commands build on the host. */
export function scriptArgs(script: HostScript, params: ScriptParams): string[] {
  const values = checkParams(script, params);
  return script.parameters.flatMap((p) => {
    const v = values[p.name]!;
    if (p.pass.as === 'positional') return [v];
    if (p.pass.as === 'option') return v === '' ? [] : [p.pass.flag, v];
    return v.split(',').filter(Boolean);
  });
}

const HEREDOC_END = 'KR_SCRIPT_END_7f3c';
const MAX_SCRIPT_BYTES = 120_000;

/**
 * The document's aws:runShellScript commands (POSIX sh: the agent runs them
 * with /bin/sh, dash on Debian). Parameter values arrive as environment
 * variables (interpolationType ENV_VAR, SSM Agent ≥ 3.3.2746.0) and are only
 * ever expanded inside double quotes, so no value is read as shell text; an
 * older agent substitutes the pattern-checked value instead. The script is
 * a here-document on descriptor 3 that one cat hands to `bash -c` as its text,
 * stdin kept /dev/null: nothing is written to disk. (bash reading a script
 * from a pipe takes it one byte per read() to stop exactly at each command:
 * 36,000 system calls, a quarter of the probe's CPU; a -c text is in memory.)
 */
export function documentCommands(script: HostScript): string[] {
  const body = script.body();
  if (body.split('\n').includes(HEREDOC_END)) throw new Error(`${script.name}: the script contains the line ${HEREDOC_END}`);
  // It becomes one argument of execve, which holds at most 128 KiB (MAX_ARG_STRLEN).
  if (Buffer.byteLength(body) > MAX_SCRIPT_BYTES) throw new Error(`${script.name}: the script is over ${MAX_SCRIPT_BYTES} bytes`);
  const lines = ['set -f', 'set --'];
  for (const p of script.parameters) {
    const v = `SSM_${p.name}`;
    lines.push(`if [ -z "\${${v}+x}" ]; then ${v}='{{ ${p.name} }}'; fi`);
    if (p.pass.as === 'positional') lines.push(`set -- "$@" "$${v}"`);
    else if (p.pass.as === 'option') lines.push(`if [ -n "$${v}" ]; then set -- "$@" ${p.pass.flag} "$${v}"; fi`);
    // Split on commas only; globbing is off (set -f) and the pattern allows no blanks.
    else lines.push(`kr_ifs=$IFS; IFS=','; set -- "$@" $${v}; IFS=$kr_ifs`);
  }
  // The braces open descriptor 3 before the command substitution reads it; bash itself gets it closed.
  lines.push(`{ bash -c "$(cat <&3)" ${script.name} "$@" < /dev/null 3<&-; } 3<<'${HEREDOC_END}'\n${body.replace(/\n$/, '')}\n${HEREDOC_END}`);
  return lines;
}

/** The SSM Command document (schema 2.2) for one script. */
export function ssmDocument(script: HostScript): Record<string, unknown> {
  const parameters: Record<string, unknown> = {};
  for (const p of script.parameters) {
    parameters[p.name] = {
      type: 'String',
      description: p.description,
      allowedPattern: p.allowedPattern,
      interpolationType: 'ENV_VAR',
      ...(p.optional ? { default: '' } : {}),
    };
  }
  parameters.executionTimeout = { type: 'String', description: 'seconds the script may run', default: '60', allowedPattern: '^[0-9]{1,4}$' };
  return {
    schemaVersion: '2.2',
    description: script.description,
    parameters,
    mainSteps: [
      {
        action: 'aws:runShellScript',
        name: 'run',
        precondition: { StringEquals: ['platformType', 'Linux'] },
        inputs: { runCommand: documentCommands(script), timeoutSeconds: '{{ executionTimeout }}' },
      },
    ],
  };
}

/** CloudFormation resource name of a script's document (ProbeSsmDocument, ReplicaDataSsmDocument). */
export function documentResourceName(script: HostScript): string {
  return `${script.name.replace(/(^|-)([a-z])/g, (_, _d: string, c: string) => c.toUpperCase())}SsmDocument`;
}

type Cfn = Record<string, unknown>;

/**
 * The CloudFormation the stack needs for the host scripts: one Command
 * document per script, named <stack>-<script> (the worker's
 * KR_SSM_DOCUMENT_PREFIX), and the worker's permission to send exactly these
 * documents (the instance side, tagged brokers only, is in serverless.yml:
 * SendCommand must be allowed on both). Rendered at package time and added
 * to the compiled template by handlers/build/ssm-documents-plugin.cjs.
 */
export function cloudFormationResources(scripts: HostScripts = HOST_SCRIPTS): Cfn {
  const resources: Cfn = {};
  const arns: unknown[] = [];
  for (const script of Object.values(scripts)) {
    const logical = documentResourceName(script);
    resources[logical] = {
      Type: 'AWS::SSM::Document',
      Properties: {
        Name: { 'Fn::Join': ['', [{ Ref: 'AWS::StackName' }, `-${script.name}`]] },
        DocumentType: 'Command',
        DocumentFormat: 'JSON',
        // A changed script becomes a new version of the same document, not a replacement.
        UpdateMethod: 'NewVersion',
        Content: ssmDocument(script),
      },
    };
    arns.push({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ssm:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':document/', { Ref: logical }]] });
  }
  resources.WorkerHostScriptsPolicy = {
    Type: 'AWS::IAM::Policy',
    Properties: {
      PolicyName: 'worker-host-scripts',
      Roles: [{ Ref: 'WorkerRole' }],
      PolicyDocument: {
        Version: '2012-10-17',
        Statement: [{ Sid: 'SendOurHostScriptDocumentsOnly', Effect: 'Allow', Action: ['ssm:SendCommand'], Resource: arns }],
      },
    },
  };
  return resources;
}
