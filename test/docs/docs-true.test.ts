// The README and docs/*.md name paths, scripts, CLI commands, Slack commands
// and each other; this keeps every one of those names true, so a file moved, a
// script renamed or a command dropped fails here with the page, the line and
// the stale reference:
//   - every repository path in backticks or a link exists (`lib/hosts/probe.sh`,
//     `bench/slack-ack.ts`). A placeholder (`runbooks/<kind>.md`) or a glob
//     (`lib/hosts/*.sh`) is a pattern that must match at least one path; a path
//     ending in `/` must be a folder. `dist/` is built, not in the repository.
//   - every `npm run X` is a script in package.json (and `npm test`, `npm ci`, … real npm commands);
//   - every `kafka-responder <command>` / `node bin/kafka-responder.js <command>`
//     is a command the CLI's usage lists, and `sandbox <command>` one the sandbox's does;
//   - every `/kafka <command>` is a registered Slack command;
//   - every relative link resolves, to the heading too when it names one.
// It also holds the issue-33 budget: README under 250 lines, each docs page
// under 400, no paragraph over 120 words; and the README's two set-up commands.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../lib/cli/main.ts';
import { slackFeatures } from '../../lib/root/slack.ts';
import { registerFeatures } from '../../lib/slack/app.ts';
import { SlackRegistry } from '../../lib/slack/registry.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));


/** Top-level folders whose names in the docs are repository paths. */
const ROOT_FOLDERS = ['lib', 'test', 'bench', 'docs', 'runbooks', 'sandbox', 'scripts', 'bin', 'handlers', '.ci'];
const SKIP_DIRS = new Set(['node_modules', '.git', 'dist', '.serverless', '.esbuild', '.sandbox']);

/** Every file and folder of the repository, relative, folders with a trailing `/`. */
function repositoryPaths(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      if (SKIP_DIRS.has(entry.name)) continue;
      const path = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        out.push(`${path}/`);
        walk(path);
      } else out.push(path);
    }
  };
  walk('');
  return out;
}

const PATHS = repositoryPaths();
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');

interface Span {
  file: string;
  line: number;
  code: string;
}

/** Fenced blocks' lines and inline code spans (a span may wrap a line), each with its line. */
function codeOf(file: string): { inline: Span[]; fenced: Span[]; prose: string } {
  const lines = text(file).split('\n');
  const inline: Span[] = [];
  const fenced: Span[] = [];
  const proseLines: string[] = [];
  let inFence = false;
  lines.forEach((l, i) => {
    if (/^\s*```/.test(l)) {
      inFence = !inFence;
      proseLines.push('');
    } else if (inFence) {
      fenced.push({ file, line: i + 1, code: l });
      proseLines.push('');
    } else proseLines.push(l);
  });
  const prose = proseLines.join('\n');
  for (const m of prose.matchAll(/`([^`]+)`/g)) {
    inline.push({ file, line: prose.slice(0, m.index).split('\n').length, code: m[1]!.replace(/\s+/g, ' ') });
  }
  return { inline, fenced, prose };
}

/** A path pattern as a regular expression: <x> one segment part, * within a segment, ** any depth, {a,b}, … anything. */
function patternRegex(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '<') {
      const end = pattern.indexOf('>', i);
      re += '[^/]+';
      i = end;
    } else if (c === '*' && pattern[i + 1] === '*') {
      re += '.*';
      i += pattern[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '{') {
      const end = pattern.indexOf('}', i);
      re += `(?:${pattern.slice(i + 1, end).split(',').map(escape).join('|')})`;
      i = end;
    } else if (c === '…') re += '.*';
    else re += escape(c);
  }
  return new RegExp(`^${re}$`);
}
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const isPattern = (p: string) => /[<*{…]/.test(p);

/** Does a repository path, or a pattern, name something that exists? */
function exists(path: string): boolean {
  const folder = path.endsWith('/');
  if (!isPattern(path)) return folder ? PATHS.includes(path) : PATHS.includes(path) || PATHS.includes(`${path}/`);
  const re = patternRegex(folder ? path.slice(0, -1) : path);
  return PATHS.some((p) => (folder ? p.endsWith('/') && re.test(p.slice(0, -1)) : re.test(p.replace(/\/$/, ''))));
}

/** The repository paths a piece of code names: tokens under a top-level folder. */
function pathsIn(code: string): string[] {
  const out: string[] = [];
  for (const raw of code.split(/[\s"'()=,;|]+/)) {
    const token = raw.replace(/^\.\//, '').replace(/[.:]+$/, '');
    const top = token.split('/')[0]!;
    if (!token.includes('/') || !ROOT_FOLDERS.includes(top)) continue;
    if (/^(?:test|lib)\/\*\*\//.test(token)) continue; // a project's file glob (vitest.config.ts), not a path
    out.push(token);
  }
  return out;
}

/** GitHub's anchor for a heading. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
const anchorsOf = (file: string) => new Set(codeOf(file).prose.split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => anchor(l.replace(/^#+ /, ''))));

async function usageOf(run: () => Promise<number>): Promise<string> {
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
  try {
    expect(await run()).toBe(0);
  } finally {
    log.mockRestore();
  }
  return lines.join('\n');
}

const NPM_COMMANDS = new Set(['ci', 'install', 'run', 'pack', 'link', 'exec']);

describe('the docs name only what exists', () => {
  afterEach(() => vi.restoreAllMocks());
  const code = DOCS.map(codeOf);
  const all = (kinds: ('inline' | 'fenced')[]) => code.flatMap((c) => kinds.flatMap((k) => c[k]));
  const at = (s: Span) => `${s.file}:${s.line}`;

  it('reads the README and a page per subject under docs/', () => {
    expect(DOCS).toContain('README.md');
    expect(DOCS.length).toBeGreaterThan(8);
  });

  it('every repository path in backticks or a link exists', () => {
    const stale: string[] = [];
    for (const s of all(['inline'])) {
      for (const path of pathsIn(s.code)) {
        if (!exists(path)) stale.push(`${at(s)}: \`${path}\` names no file or folder of the repository`);
      }
    }
    for (const file of DOCS) {
      for (const [n, line] of codeOf(file).prose.split('\n').entries()) {
        for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          const target = m[1]!.split('#')[0]!;
          if (!target || /^[a-z]+:/.test(target)) continue;
          const path = posix.normalize(posix.join(posix.dirname(file), target));
          if (!existsSync(join(ROOT, path))) stale.push(`${file}:${n + 1}: link (${m[1]}) leads to no file (${path})`);
        }
      }
    }
    expect(stale).toEqual([]);
  });

  it('every link to a heading resolves', () => {
    const stale: string[] = [];
    for (const file of DOCS) {
      for (const [n, line] of codeOf(file).prose.split('\n').entries()) {
        for (const m of line.matchAll(/\]\(([^)\s]*)#([^)\s]+)\)/g)) {
          if (/^[a-z]+:/.test(m[1]!)) continue;
          const target = m[1] ? posix.normalize(posix.join(posix.dirname(file), m[1])) : file;
          if (!target.endsWith('.md') || !existsSync(join(ROOT, target))) continue;
          if (!anchorsOf(target).has(m[2]!)) stale.push(`${file}:${n + 1}: link (${m[0].slice(2, -1)}): ${target} has no heading #${m[2]}`);
        }
      }
    }
    expect(stale).toEqual([]);
  });

  it('every npm command is npm’s, and every `npm run X` a script in package.json', () => {
    const scripts = (JSON.parse(text('package.json')) as { scripts: Record<string, string> }).scripts;
    const stale: string[] = [];
    for (const s of all(['inline', 'fenced'])) {
      for (const m of s.code.matchAll(/(?:^|[\s&;(])npm (?:run )?([a-z][\w:-]*)/g)) {
        const run = m[0].includes('npm run ');
        const name = m[1]!;
        const known = run || name === 'test' ? name in scripts : NPM_COMMANDS.has(name);
        if (!known) stale.push(`${at(s)}: \`npm ${run ? 'run ' : ''}${name}\` is no ${run || name === 'test' ? 'script in package.json' : 'npm command'}`);
      }
    }
    expect(stale).toEqual([]);
  });

  it('every kafka-responder command is one the CLI knows, and every sandbox command one the sandbox knows', async () => {
    const usage = await usageOf(() => main(['--help']));
    const commands = new Set([...usage.matchAll(/^ {2}([a-z][\w-]*) /gm)].map((m) => m[1]!));
    expect(commands).toContain('diagnose');
    const { run: sandboxRun } = await import('../../sandbox/cli.ts');
    const sandboxUsage = await usageOf(() => sandboxRun(['--help']));
    const sandboxCommands = new Set([...sandboxUsage.matchAll(/^ {2}([a-z][\w-]*)/gm)].map((m) => m[1]!));
    expect(sandboxCommands).toContain('scenario');
    const stale: string[] = [];
    for (const s of all(['inline', 'fenced'])) {
      for (const m of s.code.matchAll(/(?:^|[\s`("])(?:node bin\/kafka-responder\.js|kafka-responder)\s+([^\s`)"]+)(?:\s+([^\s`)"]+))?/g)) {
        const [, command, next] = m;
        if (command!.startsWith('-') || command!.startsWith('<') || command === '…') continue;
        if (!commands.has(command!)) stale.push(`${at(s)}: \`kafka-responder ${command}\` is no command of the CLI (${[...commands].join(', ')})`);
        if (command === 'sandbox' && next && /^[a-z]/.test(next)) {
          for (const sub of next.split('|')) {
            if (!sandboxCommands.has(sub)) stale.push(`${at(s)}: \`kafka-responder sandbox ${sub}\` is no sandbox command (${[...sandboxCommands].join(', ')})`);
          }
        }
      }
      // `sandbox up --zookeeper`, `sandbox wipe`: the CLI's sandbox command, named without the bin.
      if (!s.code.includes('kafka-responder')) {
        for (const m of s.code.matchAll(/(?:^|\s)sandbox ([a-z][\w-]*)/g)) {
          if (!sandboxCommands.has(m[1]!)) stale.push(`${at(s)}: \`sandbox ${m[1]}\` is no sandbox command (${[...sandboxCommands].join(', ')})`);
        }
      }
    }
    expect(stale).toEqual([]);
    // The README's command table names every command of the CLI.
    const readme = text('README.md');
    for (const name of commands) expect(readme, `README.md: the Commands table lacks kafka-responder ${name}`).toContain(`\`npx kafka-responder ${name}`);
  });

  it('every /kafka command is a registered Slack command', () => {
    const registered = new Set(registerFeatures(new SlackRegistry(), slackFeatures(undefined)).listCommands().map((c) => c.name));
    expect(registered).toContain('diagnose');
    const stale: string[] = [];
    for (const s of all(['inline', 'fenced'])) {
      for (const m of s.code.matchAll(/(?:^|[\s`(])\/kafka\s+([a-z][\w-]*)/g)) {
        if (!registered.has(m[1]!)) stale.push(`${at(s)}: \`/kafka ${m[1]}\` is no registered Slack command (${[...registered].join(', ')})`);
      }
    }
    expect(stale).toEqual([]);
    // The README's command table names every registered command.
    const readme = text('README.md');
    for (const name of registered) expect(readme, `README.md: the Commands table lacks /kafka ${name}`).toContain(`\`/kafka ${name}`);
  });

  it('every finding kind with a runbook is named in docs/findings.md', () => {
    const findings = text('docs/findings.md');
    const kinds = readdirSync(join(ROOT, 'runbooks')).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3));
    expect(kinds.length).toBeGreaterThan(20);
    expect(kinds.filter((k) => !findings.includes(`\`${k}\``)).map((k) => `docs/findings.md: no \`${k}\` (runbooks/${k}.md)`)).toEqual([]);
  });
});

describe('the README is a map, the pages are short', () => {
  it('the README keeps the two set-up commands CI and the tests rely on', () => {
    const readme = text('README.md');
    expect(readme).toContain('\n```sh\n# 1. the main job on the embedded default: a local Kafka sandbox (3 controllers, 3 brokers), an incident reproduced, then diagnosed\nnpm ci && npx kafka-responder demo\n\n# 2. the whole test suite (typecheck, lint, unit and integration tests on a real Kafka cluster)\nnpm ci && npm test\n```\n');
    expect(text('.ci/run')).toMatch(/^npm test$/m);
  });

  it('README under 250 lines, each docs page under 400', () => {
    const over = DOCS.map((f) => ({ f, n: text(f).split('\n').length - 1 })).filter(({ f, n }) => n >= (f === 'README.md' ? 250 : 400));
    expect(over.map(({ f, n }) => `${f}: ${n} lines`)).toEqual([]);
  });

  it('no paragraph over 120 words (code blocks and tables aside)', () => {
    const long: string[] = [];
    for (const file of DOCS) {
      const lines = codeOf(file).prose.split('\n');
      let start = 0;
      let words = 0;
      lines.forEach((l, i) => {
        const breaks = !l.trim() || /^\s*(?:[-*] |\d+\. |#|\|)/.test(l);
        if (breaks) {
          if (words > 120) long.push(`${file}:${start + 1}: a paragraph of ${words} words`);
          words = 0;
          start = i;
        }
        if (l.trim() && !/^\s*(?:#|\|)/.test(l)) words += l.trim().split(/\s+/).length;
      });
      if (words > 120) long.push(`${file}:${start + 1}: a paragraph of ${words} words`);
    }
    expect(long).toEqual([]);
  });
});
