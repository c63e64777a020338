// The `/kafka` entry of slack-app-manifest.yml, derived from the commands the
// Slack handler registers (lib/root/slack.ts): its description names every
// command, its usage hint is every command's usage, in `help` order.
// test/slack/manifest.test.ts fails when the file and the commands differ; then
//   npx tsx lib/root/manifest.ts
// rewrites the two lines.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { operationsSlack } from '../operations/slack.ts';
import { registerFeatures } from '../slack/app.ts';
import { SlackRegistry } from '../slack/registry.ts';
import { slackFeatures } from './slack.ts';

export const MANIFEST_FILE = fileURLToPath(new URL('../../slack-app-manifest.yml', import.meta.url));

/** Slack's limits for a slash command (manifest schema 1.0.0: features.slash_commands). */
export const SLASH_COMMAND_LIMITS = { description: 2000, usageHint: 1000 };

export interface SlashCommandText {
  description: string;
  usageHint: string;
}

export function slashCommandText(): SlashCommandText {
  const commands = registerFeatures(new SlackRegistry(), slackFeatures(undefined)).listCommands();
  const approved = new Set((operationsSlack(undefined).commands ?? []).map((c) => c.name));
  const names = (ops: boolean) => commands.filter((c) => approved.has(c.name) === ops).map((c) => c.name);
  return {
    description: `Kafka incident response: ${names(false).join(', ')}; two-person-approved ${names(true).join(', ')}`,
    usageHint: commands.map((c) => c.usage).join(' | '),
  };
}

// The two fields of the `/kafka` command, one double-quoted line each (JSON-compatible YAML).
const FIELD = (name: string) => new RegExp(`^(\\s+${name}: )(".*")$`, 'm');
const SLASH_SECTION = /^\s+slash_commands:\n\s+- command: \/kafka\n(?:\s{6}.*\n)+/m;

function section(text: string): string {
  const found = SLASH_SECTION.exec(text)?.[0];
  if (!found) throw new Error(`${MANIFEST_FILE}: no /kafka entry under features.slash_commands`);
  return found;
}

/** The `/kafka` command's description and usage hint as the manifest states them. */
export function manifestSlashCommand(text: string): SlashCommandText {
  const entry = section(text);
  const field = (name: string) => {
    const m = FIELD(name).exec(entry);
    if (!m) throw new Error(`${MANIFEST_FILE}: the /kafka entry has no one-line double-quoted ${name}`);
    return JSON.parse(m[2]!) as string;
  };
  return { description: field('description'), usageHint: field('usage_hint') };
}

/** The manifest with the `/kafka` command's description and usage hint replaced. */
export function withSlashCommand(text: string, fields: SlashCommandText): string {
  const entry = section(text);
  const updated = entry
    .replace(FIELD('description'), (_, head: string) => `${head}${JSON.stringify(fields.description)}`)
    .replace(FIELD('usage_hint'), (_, head: string) => `${head}${JSON.stringify(fields.usageHint)}`);
  return text.replace(entry, updated);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const before = readFileSync(MANIFEST_FILE, 'utf8');
  const after = withSlashCommand(before, slashCommandText());
  if (after !== before) writeFileSync(MANIFEST_FILE, after);
  console.log(after === before ? `${MANIFEST_FILE}: up to date` : `${MANIFEST_FILE}: /kafka description and usage hint updated`);
}
