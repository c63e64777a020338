// The one way an error becomes a line of text (logs, Slack replies, reports).
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
