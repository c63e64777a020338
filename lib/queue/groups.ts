// FIFO message groups (SqsJobQueue: MessageGroupId = job.group) for work that
// has a main job and chatter about it, e.g. an operation's execute ticks and
// the updates of its Slack plan message. SQS FIFO delivers one message of a
// group at a time, and a failing one is retried (visibility timeout ×
// maxReceiveCount: 1080 s × 3 here) before anything behind it runs; so an
// update that keeps failing would hold back the job it is about, long enough
// for an approval to expire. Updates therefore travel in a lane of their own:
// still in order among themselves, never in front of the work.

/** The group of updates (messages, thread lines) about the work whose group is `workGroup`. */
export function updatesGroup(workGroup: string): string {
  // SQS allows up to 128 characters, punctuation included.
  return `${workGroup.slice(0, 120)}.updates`;
}
