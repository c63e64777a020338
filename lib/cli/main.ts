// `npx kafka-responder <command>`: a router only; each command lives in its own
// module and is loaded on demand so `help` stays instant.
import { UsageError, errorMessage } from '../runtime/errors.ts';
import type { CliDefaults } from '../diagnose/cli-support.ts';
import type { Executor } from '../hosts/types.ts';

/** What the bin gives the CLI. */
export interface MainOptions {
  /** Runs the sandbox's hosts, the probes it started before loading the bundle among them (lib/cli/early-probes.ts). */
  sandboxHosts?: Executor;
}

/**
 * Set by scripts/build-cli.mjs in a bundle of one command (dist/kafka-responder-<name>.cjs):
 * the other commands' loaders fold away, and their modules stay out of it.
 * (esbuild folds the condition only where it is written out in full.)
 */
declare const KR_BUNDLE_COMMAND: string | undefined;
const elsewhere = (): Promise<never> => Promise.reject(new Error('this command is not in this bundle: run the package bin'));

type CommandModule = { run(argv: string[]): Promise<number> };
type TargetCommandModule = { run(argv: string[], defaults: CliDefaults): Promise<number> };

/** A command that talks to a cluster: with no flag naming one, the local sandbox (lib/cli/sandbox-target.ts). */
const withSandboxDefault = (load: () => Promise<TargetCommandModule>) => async (opts: MainOptions): Promise<CommandModule> => {
  const [command, { sandboxTargetWith }] = await Promise.all([load(), import('./sandbox-target.ts')]);
  return { run: (argv) => command.run(argv, { noFlagTarget: sandboxTargetWith(opts.sandboxHosts) }) };
};

/** `serve` keeps running (zod's compiled parsers pay off there); every other command runs once. */
const COMMANDS: Record<string, { summary: string; load: (opts: MainOptions) => Promise<CommandModule>; longRunning?: true }> = {
  demo: {
    summary: 'bring the sandbox up, reproduce an incident (default isr-one-leader-lost) and diagnose it',
    load: typeof KR_BUNDLE_COMMAND !== 'string' || KR_BUNDLE_COMMAND === 'demo' ? () => import('./demo.ts') : elsewhere,
  },
  sandbox: {
    summary: 'local 3-broker Kafka cluster: up, down, status, env, stop|kill|start|wipe <id>, scenario <name>',
    load: typeof KR_BUNDLE_COMMAND !== 'string' || KR_BUNDLE_COMMAND === 'sandbox' ? () => import('../../sandbox/cli.ts') : elsewhere,
  },
  diagnose: {
    summary: 'diagnose a cluster: [--config FILE [--cluster NAME] | --bootstrap LIST] [--topic T] [--format text|json|markdown]',
    load: typeof KR_BUNDLE_COMMAND !== 'string' || KR_BUNDLE_COMMAND === 'diagnose' ? withSandboxDefault(() => import('../diagnose/cli-diagnose.ts')) : elsewhere,
  },
  audit: {
    summary: 'read-only risk audit (settings, host state, drift): [--config FILE [--cluster NAME] | --bootstrap LIST] [--format …]',
    load: typeof KR_BUNDLE_COMMAND !== 'string' || KR_BUNDLE_COMMAND === 'audit' ? withSandboxDefault(() => import('../audit/cli.ts')) : elsewhere,
  },
  serve: {
    summary: 'local HTTP server: Slack + alert handlers, worker in-process [--port 3000] [--host 127.0.0.1]',
    load: typeof KR_BUNDLE_COMMAND !== 'string' || KR_BUNDLE_COMMAND === 'serve' ? () => import('./serve.ts') : elsewhere,
    longRunning: true,
  },
  transactions: {
    summary: 'open and hanging transactions (KIP-664) of a cluster or topic: [topic] [--config FILE [--cluster NAME] | --bootstrap LIST]',
    load: typeof KR_BUNDLE_COMMAND !== 'string' || KR_BUNDLE_COMMAND === 'transactions' ? () => import('../diagnose/cli-transactions.ts') : elsewhere,
  },
  timeline: {
    summary: "an incident thread's postmortem timeline: --incident ID [--format markdown|json]",
    load: typeof KR_BUNDLE_COMMAND !== 'string' || KR_BUNDLE_COMMAND === 'timeline' ? () => import('../timeline/cli.ts') : elsewhere,
  },
  'can-restart': {
    summary: 'can broker <id> be restarted safely right now? [--config FILE [--cluster NAME]] [--format …]',
    load: typeof KR_BUNDLE_COMMAND !== 'string' || KR_BUNDLE_COMMAND === 'can-restart' ? withSandboxDefault(() => import('../diagnose/cli-can-restart.ts')) : elsewhere,
  },
};

function usage(): string {
  const lines = ['usage: kafka-responder <command> [args]', '', 'commands:'];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(12)} ${c.summary}`);
  return lines.join('\n');
}

export async function main(argv: string[], opts: MainOptions = {}): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    console.log(usage());
    return name ? 0 : 2;
  }
  // Own keys only: "constructor" or "__proto__" is an unknown command, not an object method.
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    console.error(`unknown command: ${name}\n\n${usage()}`);
    return 2;
  }
  try {
    if (!command.longRunning) await import('./zod-one-shot.ts');
    return await (await command.load(opts)).run(rest);
  } catch (err) {
    // A tool people rely on at 3 a.m. says what went wrong in one line, not a stack.
    console.error(`kafka-responder ${name}: ${errorMessage(err)}`);
    if (process.env.KR_DEBUG) console.error(err);
    return exitCodeOf(err);
  }
}

/**
 * A failed command's exit code, from its error's class: flags that contradict
 * each other, or a setting the command needs, are a usage error (2, like an
 * unknown flag); any other failure is 1.
 */
export function exitCodeOf(err: unknown): number {
  return err instanceof UsageError ? 2 : 1;
}
