import type { Sandbox } from './cluster.ts';
export const SCENARIOS: Record<string, (s: Sandbox, args: string[]) => Promise<unknown>> = {};
export async function runScenario(s: Sandbox, name: string, args: string[]): Promise<unknown> {
  const f = SCENARIOS[name];
  if (!f) throw new Error(`unknown scenario ${name}`);
  return f(s, args);
}
