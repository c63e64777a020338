import type { Sandbox } from './cluster.ts';
import type { ScenarioContext, ScenarioResult } from './scenarios.ts';
export async function offsetsLoading(_s: Sandbox, _c: ScenarioContext): Promise<ScenarioResult['expect']> {
  throw new Error('not yet');
}
