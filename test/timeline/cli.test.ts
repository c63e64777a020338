// `kafka-responder timeline` as a user runs it with neither store named (the
// installed bin, an environment with no KR_APPROVALS_DYNAMODB_ENDPOINT and no
// STATE_TABLE): a usage error saying which to set, before any AWS call. The
// export itself, from serve's default in-process store, is
// test/operations/serve-readme.int.test.ts's `/kafka timeline`.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/kafka-responder.js', import.meta.url));

it('with no store named, exits 2 and says to set KR_APPROVALS_DYNAMODB_ENDPOINT or STATE_TABLE', async () => {
  const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
    execFile(process.execPath, [BIN, 'timeline', '--incident', 'C0123ABC/1764662400.000100'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, timeout: 60_000 }, (err, _stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stderr }),
    );
  });
  expect(result.code).toBe(2);
  expect(result.stderr).toMatch(/set KR_APPROVALS_DYNAMODB_ENDPOINT \(a local serve's store\) or STATE_TABLE \(the deployed bot's\)/);
});
