// The import DAG of eslint.config.js, as ESLint applies it: production code
// under lib/ never reaches the sandbox (a static or dynamic import), while the
// CLI's entry and the local server may.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function messages(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return result!.messages.map((m) => m.message);
}

describe('the sandbox boundary', () => {
  it.each(['lib/diagnose/x.ts', 'lib/slack/x.ts', 'lib/root/x.ts', 'lib/operations/kinds/x.ts'])('%s may not import sandbox/, statically or dynamically', async (file) => {
    const depth = file.split('/').length - 1;
    const up = '../'.repeat(depth);
    const found = await messages(file, `import { sandboxSettings } from '${up}sandbox/layout.ts';\nexport const a = sandboxSettings;\nexport const b = () => import('${up}sandbox/cluster.ts');\n`);
    expect(found.filter((m) => /never reaches the sandbox/.test(m))).toHaveLength(2);
  });

  it.each(['lib/cli/x.ts', 'lib/local/x.ts'])('%s may', async (file) => {
    const found = await messages(file, "import { sandboxSettings } from '../../sandbox/layout.ts';\nexport const a = sandboxSettings;\nexport const b = () => import('../../sandbox/cluster.ts');\n");
    expect(found.filter((m) => /sandbox/.test(m))).toEqual([]);
  });
});

describe('the folder DAG', () => {
  it('an infrastructure folder may not import a feature; a feature may import infrastructure', async () => {
    expect(await messages('lib/kafka/x.ts', "import { planDrain } from '../operations/kinds/drain-broker.ts';\nexport const a = planDrain;\n")).toEqual([expect.stringMatching(/lib\/kafka\/ may import only from/)]);
    expect(await messages('lib/state/x.ts', "export const b = () => import('../diagnose/run.ts');\n")).toEqual([expect.stringMatching(/lib\/state\/ may import only from/)]);
    expect(await messages('lib/operations/x.ts', "import { KafkaAdminError } from '../kafka/errors.ts';\nexport const a = KafkaAdminError;\n")).toEqual([]);
  });

  it('a Lambda handler may import only the composition root', async () => {
    expect(await messages('handlers/x.ts', "import { newJob } from '../lib/queue/job.ts';\nexport const a = newJob;\n")).toEqual([expect.stringMatching(/only lib\/root\//)]);
    expect(await messages('handlers/x.ts', "export { handler } from '../lib/root/deployed-slack.ts';\n")).toEqual([]);
  });

  it('every folder under lib/ has its place in the DAG', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const text = readFileSync('eslint.config.js', 'utf8');
    const allowed = text.slice(text.indexOf('const ALLOWED = {'), text.indexOf('};', text.indexOf('const ALLOWED = {')));
    const listed = [...allowed.matchAll(/^\s{2}(\w+):/gm)].map((m) => m[1]).sort();
    const folders = readdirSync('lib', { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    expect(listed).toEqual(folders);
  });
});
