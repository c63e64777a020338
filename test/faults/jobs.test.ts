// The fault-injection suite: for each job kind, the worker process is stopped
// right after each write the job makes (a DynamoDB item, a Slack message, an
// enqueued job, a change to the cluster), the job is delivered again to a
// fresh process, and what anyone can see afterwards must be what a run
// without the fault leaves: one message per purpose, the same items in the
// tables, nothing left on the cluster, nothing lost. Real signed requests
// start the jobs, dynalite holds the tables, the Slack stub records what was
// posted, the cluster is scripted (test/faults/sandbox.int.test.ts repeats
// the operations on the real sandbox).
//
// The scenarios are in scenarios.ts, in groups: this file runs the slash
// commands' group; jobs-alerts, jobs-sweep and jobs-execute run the others, so
// the four spread over the workers.
import { faultGroup } from './scenarios.ts';

faultGroup('slash');
