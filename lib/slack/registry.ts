// Extension points of the Slack app. Subcommands of `/kafka` and interactive
// actions (buttons) are looked up here; features contribute them through the
// composition root (lib/root/slack.ts) without touching the router.
import type { KnownBlock } from '@slack/types';
import type { AfterAnswer } from '../runtime/after-answer.ts';
import type { Config } from '../config/schema.ts';
import type { JobQueue } from '../queue/job.ts';
import type { Log } from '../runtime/log.ts';
import type { StateStore } from '../state/state-store.ts';

/** Everything a handler may use on the ack path: no Kafka, no SSM, no diagnosis. */
export interface AckDeps {
  config: Config;
  queue: JobQueue;
  store: StateStore;
  log: Log;
  /** Where work the answer need not wait for goes (lib/runtime/after-answer.ts): serve gives one; a Lambda does it before answering. */
  afterAnswer?: AfterAnswer;
}

export interface CommandInvocation {
  /** Words after the subcommand name, already split on whitespace. */
  args: string[];
  userId: string;
  channelId: string;
  teamId?: string;
  responseUrl?: string;
  triggerId?: string;
  correlationId: string;
}

/** What the slash command answers with (the HTTP response body). */
export interface CommandReply {
  response_type: 'ephemeral' | 'in_channel';
  text: string;
  blocks?: KnownBlock[];
}

export interface SlashSubcommand {
  name: string;
  /** e.g. "diagnose [cluster] [topic]" */
  usage: string;
  summary: string;
  run(invocation: CommandInvocation, deps: AckDeps): Promise<CommandReply>;
}

export interface ActionInvocation {
  actionId: string;
  value?: string;
  userId: string;
  channelId?: string;
  messageTs?: string;
  actionTs?: string;
  responseUrl?: string;
  correlationId: string;
  /** The raw interactivity payload, for handlers that need more. */
  payload: unknown;
}

export interface ActionHandler {
  /** Matches action_id values starting with this prefix, e.g. "approval:". */
  actionIdPrefix: string;
  /** Optional reply that replaces nothing; most handlers enqueue and return undefined. */
  run(invocation: ActionInvocation, deps: AckDeps): Promise<CommandReply | void>;
}

export class SlackRegistry {
  private readonly commands = new Map<string, SlashSubcommand>();
  private readonly actions: ActionHandler[] = [];

  registerCommand(command: SlashSubcommand): void {
    if (!/^[a-z][a-z0-9-]{0,31}$/.test(command.name)) throw new Error(`invalid subcommand name: ${command.name}`);
    if (this.commands.has(command.name)) throw new Error(`subcommand already registered: ${command.name}`);
    this.commands.set(command.name, command);
  }

  registerAction(handler: ActionHandler): void {
    if (this.actions.some((a) => a.actionIdPrefix === handler.actionIdPrefix)) {
      throw new Error(`action prefix already registered: ${handler.actionIdPrefix}`);
    }
    this.actions.push(handler);
  }

  command(name: string): SlashSubcommand | undefined {
    return this.commands.get(name);
  }

  listCommands(): SlashSubcommand[] {
    return [...this.commands.values()];
  }

  action(actionId: string): ActionHandler | undefined {
    // Longest prefix wins so "approval:reject" can override "approval:".
    return this.actions
      .filter((a) => actionId.startsWith(a.actionIdPrefix))
      .sort((a, b) => b.actionIdPrefix.length - a.actionIdPrefix.length)[0];
  }
}

/** What one feature adds to the Slack app. */
export interface SlackContribution {
  commands?: SlashSubcommand[];
  actions?: ActionHandler[];
}
