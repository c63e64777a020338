// requiredLiteral: the text every match of a pattern holds, so classifyLogLine
// can skip the patterns whose text a line lacks. Wrong text would silently
// drop lines: each log pattern's text is checked against every known line it matches.
import { describe, expect, it } from 'vitest';
import { LOG_PATTERNS } from '../../lib/hosts/log-patterns.ts';
import { requiredLiteral } from '../../lib/hosts/regex-literal.ts';
import { CASES } from './log-pattern-cases.ts';

describe('requiredLiteral', () => {
  it.each([
    [/\bfoo\.bar(?<g>\d+) baz/, 'foo.bar'],
    [/a?bcd/, 'bcd'],
    [/abc?d/, 'ab'],
    [/ab+cd/, 'ab'],
    [/xab{2}cd/, 'xab'],
    [/ab{0,2}cd/, 'cd'],
    [/ab*cd/, 'cd'],
    [/start (?:x|y) middle text [^\]]+ end/, ' middle text '],
    [/\[(?<t>k-\d+)\]: Error due to/, ']: Error due to'],
    [/one|two/, ''],
    [/Case/i, ''],
    [/\x41BC/, ''],
    [/^(?!.*skip me).*\bkeep this\b/, 'keep this'],
  ])('%s -> %j', (regex, literal) => {
    expect(requiredLiteral(regex)).toBe(literal);
  });

  it("every log pattern has text of its own, and every known line it matches holds that text", () => {
    for (const p of LOG_PATTERNS) {
      const literal = requiredLiteral(p.regex);
      expect(literal.length, p.regex.source).toBeGreaterThan(5);
      expect(p.regex.source.replace(/\\(.)/g, '$1'), p.regex.source).toContain(literal);
      for (const [version, line] of CASES) if (p.regex.test(line)) expect(line, `${p.kind} ${version}`).toContain(literal);
    }
  });
});
