// A Lambda function packaged as serverless.yml packages it (serverless-esbuild
// with custom.esbuild: one minified ESM bundle, the same banner and plugins),
// written where the zip puts it (handlers/<file>.mjs), and a local host for it:
// a child Node process that imports the bundle and invokes the exported
// handler the way the Lambda runtime does, in front of it API Gateway's HTTP
// API (payload v2, its 10 MB request limit and Lambda's 6 MB). AWS services
// are whatever AWS_ENDPOINT_URL names (moto in the tests). The host reports its
// peak resident memory (the figure Lambda bills and limits).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const plugins = createRequire(import.meta.url)(join(root, 'handlers/build/esbuild-plugins.cjs'));
/** serverless.yml custom.esbuild.banner.js */
const BANNER = "import { createRequire as __krCreateRequire } from 'node:module'; const require = __krCreateRequire(import.meta.url);";

/** serverless.yml's custom.esbuild, option for option (lambda-package.test.ts keeps them equal). */
export const LAMBDA_ESBUILD = { bundle: true, minify: true, keepNames: true, sourcemap: false, target: 'node22', platform: 'node', format: 'esm', banner: { js: BANNER } } as const;

/** Bundles handlers/<name>.ts into <dir>/handlers/<name>.mjs; returns its path and size. */
export async function packageLambda(name: string, dir: string): Promise<{ path: string; bytes: number }> {
  const outfile = join(dir, 'handlers', `${name}.mjs`);
  mkdirSync(dirname(outfile), { recursive: true });
  const r = await build({
    entryPoints: [join(root, 'handlers', `${name}.ts`)],
    ...LAMBDA_ESBUILD,
    plugins,
    outfile,
    metafile: true,
    logLevel: 'error',
  });
  return { path: outfile, bytes: Object.values(r.metafile.outputs)[0]!.bytes };
}

const HOST = fileURLToPath(new URL('./lambda-host.mjs', import.meta.url));

export interface LambdaHost {
  url: string;
  /** Invokes the handler with this event (as Lambda's Invoke would); its result. */
  invoke(event: unknown): Promise<unknown>;
  /** Peak resident memory of the function's process so far, in bytes. */
  maxRssBytes(): Promise<number>;
  logs: string[];
  stop(): Promise<void>;
}

/** Runs `exportName` of the bundle at `bundle` in its own Node process on 127.0.0.1:`port`. */
export async function startLambdaHost(bundle: string, exportName: string, port: number, env: Record<string, string>, timeoutSeconds = 10): Promise<LambdaHost> {
  const logs: string[] = [];
  const child: ChildProcess = spawn(process.execPath, [HOST, bundle, exportName, String(port), String(timeoutSeconds)], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => logs.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => logs.push(d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`lambda host exited: ${logs.join('')}`);
    if (logs.join('').includes('lambda host ready')) break;
    if (Date.now() > until) throw new Error(`lambda host did not start: ${logs.join('')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    logs,
    async invoke(event) {
      const res = await fetch(`${url}/invoke`, { method: 'POST', body: JSON.stringify(event) });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`invoke failed (${res.status}): ${text}`);
      return text ? (JSON.parse(text) as unknown) : undefined;
    },
    async maxRssBytes() {
      return ((await (await fetch(`${url}/stats`)).json()) as { maxRssBytes: number }).maxRssBytes;
    },
    stop: () =>
      new Promise<void>((r) => {
        if (child.exitCode !== null) return r();
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}
