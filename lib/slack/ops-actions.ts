// action_id values of the operation buttons (issue 5); handlers in ops-commands.ts.
export const OPS_ACTIONS = {
  approve: 'ops:approve',
  reject: 'ops:reject',
  cancel: 'ops:cancel',
  /** A human closes a run whose worker died (lease expired) as FAILED; never a re-run. */
  abandon: 'ops:abandon',
  /** Value: an OpsPlanButton (JSON), from a finding or a refused full drain. */
  plan: 'ops:plan',
} as const;
