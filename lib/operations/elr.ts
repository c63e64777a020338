// Kept for lib/diagnose, which explains ELR in findings: the ELR helpers live
// with the leader override (kinds/leader-override/elr.ts).
export * from './kinds/leader-override/elr.ts';
