// action_id values of the operation buttons; handlers in lib/operations/slack.ts.
export const OPS_ACTIONS = {
  approve: 'ops:approve',
  reject: 'ops:reject',
  cancel: 'ops:cancel',
  /** Any one approver stops a running operation (in-flight reassignments cancelled, throttles removed). */
  stop: 'ops:stop',
  /** Any one approver resumes a paused run (a restart whose live can-restart said no): it checks again. */
  resume: 'ops:resume',
  /** Any one approver ends a paused restart and leaves the broker it stopped stopped (the compensation does not start it). */
  leaveStopped: 'ops:leave-stopped',
  /** A human closes a run that keeps failing to resume (lease expired) as FAILED; the sweep still removes its throttles. */
  abandon: 'ops:abandon',
  /** Value: an OpsPlanButton (JSON), from a finding or a refused full drain. */
  plan: 'ops:plan',
} as const;
