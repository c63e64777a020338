// The integration tests and bench/alert-intake.ts run the Lambdas as
// test/deploy/lambda-package.ts bundles them: that must stay what
// serverless.yml's serverless-esbuild settings produce.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { LAMBDA_ESBUILD } from './lambda-package.ts';

// js-yaml comes with osls (it parses serverless.yml the same way).
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };

describe('the test packaging of the Lambdas', () => {
  it("uses serverless.yml's custom.esbuild options exactly", () => {
    const sls = yaml.load(readFileSync(new URL('../../serverless.yml', import.meta.url), 'utf8')) as { custom: { esbuild: Record<string, unknown> } };
    const { plugins, exclude, packager, outputFileExtension, ...options } = sls.custom.esbuild;
    expect({ plugins, exclude, packager, outputFileExtension }).toEqual({ plugins: 'handlers/build/esbuild-plugins.cjs', exclude: [], packager: 'npm', outputFileExtension: '.mjs' });
    expect(options).toEqual(LAMBDA_ESBUILD);
  });
});
