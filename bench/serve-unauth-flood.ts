// Unauthenticated alert posts against the installed `serve`, as a client on
// the internet could send them through the tunnel the README suggests.
//   npm run build && npx tsx bench/serve-unauth-flood.ts [--posts 50] [--mb 10] [--rounds 3]
// Starts `node bin/kafka-responder.js serve` on a free loopback port with
// the defaults (no KR_CONFIG: the sandbox configuration; no cluster needs to
// run), samples its resident memory (/proc/<pid>/status VmRSS) every 20 ms,
// and sends --posts parallel POSTs of --mb MB each with a wrong bearer token,
// --rounds times. Prints idle RSS, peak RSS, the peak above idle, and the
// status codes. Loopback only; bounded by --posts × --rounds.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';

const args = process.argv.slice(2);
const flag = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : def;
};
const POSTS = Math.min(500, flag('--posts', 50));
const MB = Math.min(20, flag('--mb', 10));
const ROUNDS = Math.min(20, flag('--rounds', 3));

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

function post(url: string, body: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(body.length), authorization: 'Bearer not-the-token-000000' } });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    // A server that cuts the connection after answering counts as its answer; anything else is an error.
    req.on('error', () => resolve(-1));
    req.end(body);
  });
}

async function main(): Promise<void> {
  const port = await freePort();
  const child = spawn(process.execPath, ['bin/kafka-responder.js', 'serve', '--port', String(port)], {
    env: { ...process.env, SLACK_SIGNING_SECRET: 'bench-signing-secret', SLACK_BOT_TOKEN: 'xoxb-bench', SLACK_API_URL: 'http://127.0.0.1:9/api/', ALERTMANAGER_TOKEN: 'bench-alertmanager-token-0123', KR_SWEEP_SECONDS: '0' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  try {
    const deadline = Date.now() + 60_000;
    while (!stderr.includes('listening on')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`serve did not start:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 2000));
    const idle = rssMb(child.pid!);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(child.pid!))), 20);
    const body = Buffer.alloc(MB * 1024 * 1024, 0x20);
    const codes = new Map<number, number>();
    const started = performance.now();
    for (let r = 0; r < ROUNDS; r++) {
      const results = await Promise.all(Array.from({ length: POSTS }, () => post(`http://127.0.0.1:${port}/alerts/alertmanager`, body)));
      for (const c of results) codes.set(c, (codes.get(c) ?? 0) + 1);
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    const after = rssMb(child.pid!);
    console.log(`serve: ${ROUNDS} rounds of ${POSTS} parallel unauthenticated ${MB} MB alert posts in ${seconds.toFixed(1)} s`);
    console.log(`answers: ${[...codes].map(([c, n]) => `${c === -1 ? 'connection cut' : c} ×${n}`).join(', ')}`);
    console.log(`RSS idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB (+${(peak - idle).toFixed(0)} MB above idle), after ${after.toFixed(0)} MB`);
  } finally {
    child.kill('SIGTERM');
  }
}

await main();
