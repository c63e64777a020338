// Lambda: Slack slash commands and interactivity (HTTP API). The wiring, built
// once per container from SSM's config and secrets: lib/root/deployed-slack.ts.
export { handler } from '../lib/root/deployed-slack.ts';
