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
