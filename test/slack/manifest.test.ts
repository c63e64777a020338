// slack-app-manifest.yml states the `/kafka` command Slack shows users: its
// description and usage hint must name every command the handler answers, so a
// command added to the table (lib/root/slack.ts) fails here until the manifest says it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MANIFEST_FILE, SLASH_COMMAND_LIMITS, manifestSlashCommand, slashCommandText, withSlashCommand } from '../../lib/root/manifest.ts';
import { registerFeatures } from '../../lib/slack/app.ts';
import { SlackRegistry } from '../../lib/slack/registry.ts';
import { slackFeatures } from '../../lib/root/slack.ts';

const FIX = 'slack-app-manifest.yml is out of date: run `npx tsx lib/root/manifest.ts`';
const registered = registerFeatures(new SlackRegistry(), slackFeatures(undefined)).listCommands();

describe('the Slack app manifest', () => {
  const manifest = manifestSlashCommand(readFileSync(MANIFEST_FILE, 'utf8'));

  it('has the usage hint and description derived from the registered commands', () => {
    expect(manifest, FIX).toEqual(slashCommandText());
  });

  it('names every registered command, its usage included, within Slack’s limits', () => {
    expect(registered.length).toBeGreaterThan(5);
    const hinted = manifest.usageHint.split(' | ');
    for (const c of registered) {
      expect(hinted, `${c.name} in the usage hint (${FIX})`).toContain(c.usage);
      expect(manifest.description, `${c.name} in the description (${FIX})`).toMatch(new RegExp(`(?:^|[ ,:])${c.name}(?:$|[,;])`));
    }
    expect(hinted).toHaveLength(registered.length);
    expect(manifest.description.length).toBeLessThanOrEqual(SLASH_COMMAND_LIMITS.description);
    expect(manifest.usageHint.length).toBeLessThanOrEqual(SLASH_COMMAND_LIMITS.usageHint);
  });

  it('is rewritten in place by the generator, the rest of the file untouched', () => {
    const text = readFileSync(MANIFEST_FILE, 'utf8');
    const stale = withSlashCommand(text, { description: 'Kafka incident response: diagnose', usageHint: 'help | diagnose [cluster] [topic]' });
    expect(manifestSlashCommand(stale)).toEqual({ description: 'Kafka incident response: diagnose', usageHint: 'help | diagnose [cluster] [topic]' });
    expect(withSlashCommand(stale, manifestSlashCommand(text))).toBe(text);
    expect(stale.split('\n').filter((l, i) => l !== text.split('\n')[i])).toHaveLength(2);
  });
});
