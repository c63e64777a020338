// `npx kafka-responder <command>`: a router only; each command lives in its own
// module and is loaded on demand so `help` stays instant.
import { errorMessage } from '../runtime/errors.ts';
import type { CliDefaults } from '../diagnose/cli-support.ts';
import type { Executor } from '../hosts/types.ts';

/** What the bin gives the CLI. */
export interface MainOptions {
  /** Runs the sandbox's hosts, the probes it started before loading the bundle among them (lib/cli/early-probes.ts). */
  sandboxHosts?: Executor;
}

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
    load: () => import('./demo.ts'),
  },
  sandbox: {
    summary: 'local 3-broker Kafka cluster: up, down, status, env, stop|kill|start|wipe <id>, scenario <name>',
    load: () => import('../../sandbox/cli.ts'),
  },
  diagnose: {
    summary: 'diagnose a cluster: [--config FILE [--cluster NAME] | --bootstrap LIST] [--topic T] [--format text|json|markdown]',
    load: withSandboxDefault(() => import('../diagnose/cli.ts')),
  },
  audit: {
    summary: 'read-only risk audit (settings, host state, drift): [--config FILE [--cluster NAME] | --bootstrap LIST] [--format …]',
    load: withSandboxDefault(() => import('../audit/cli.ts')),
  },
  serve: {
    summary: 'local HTTP server: Slack + alert handlers, worker in-process [--port 3000] [--host 127.0.0.1]',
    load: () => import('./serve.ts'),
    longRunning: true,
  },
  transactions: {
    summary: 'open and hanging transactions (KIP-664) of a cluster or topic: [topic] [--config FILE [--cluster NAME] | --bootstrap LIST]',
    load: () => import('../diagnose/cli-transactions.ts'),
  },
  timeline: {
    summary: "an incident thread's postmortem timeline: --incident ID [--format markdown|json]",
    load: () => import('../timeline/cli.ts'),
  },
  'can-restart': {
    summary: 'can broker <id> be restarted safely right now? [--config FILE [--cluster NAME]] [--format …]',
    load: withSandboxDefault(() => import('../diagnose/cli-can-restart.ts')),
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
    // Flags that contradict each other are a usage error, like an unknown flag.
    return err instanceof Error && err.name === 'UsageError' ? 2 : 1;
  }
}
