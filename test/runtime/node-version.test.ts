// `npm ci` brings Node 22 (the `node` devDependency) and `npm test` runs on it:
// the same major as the Lambda runtime (serverless.yml: nodejs22.x) and engines.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('Node runtime', () => {
  it('tests run on Node 22, the Lambda runtime', () => {
    expect(process.versions.node).toMatch(/^22\./);
  });

  it('package.json engines, the pinned node devDependency and serverless.yml agree on 22', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string }; devDependencies: Record<string, string> };
    expect(pkg.engines.node).toBe('>=22');
    expect(pkg.devDependencies.node).toMatch(/^22\.\d+\.\d+$/);
    expect(readFileSync('serverless.yml', 'utf8')).toMatch(/^\s+runtime: nodejs22\.x$/m);
  });
});
