// The text every match of a regular expression contains, read from its source:
// a cheap `includes` before `exec` spares the regex engine most lines (the log
// patterns are tried in turn on every line a probe returns, and most fail).

const QUANTIFIER = /^\{\d+(,\d*)?\}/;

/**
 * The longest run of literal characters at the pattern's top level (outside
 * groups and classes) that no quantifier makes optional; '' when there is
 * none, when the pattern has a top-level alternative, or when it is not
 * case-sensitive or uses escapes this reader does not know.
 */
export function requiredLiteral(regex: RegExp): string {
  const source = regex.source;
  if (regex.flags.includes('i') || /\\[xuckpP]/.test(source)) return '';
  let best = '';
  let run = '';
  let depth = 0;
  const flush = () => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[++i] ?? '';
      // An escaped punctuation character is itself; \d, \s, \b and the like are not text.
      if (depth === 0 && /[^A-Za-z0-9]/.test(next)) run += next;
      else flush();
    } else if (c === '[') {
      // A class: skip to its end (a leading ] and escaped characters belong to it).
      i++;
      if (source[i] === '^') i++;
      if (source[i] === ']') i++;
      while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
      flush();
    } else if (c === '(') {
      depth++;
      flush();
    } else if (c === ')') {
      depth--;
      flush();
    } else if (c === '|') {
      if (depth === 0) return '';
    } else if (c === '?' || c === '*' || (c === '{' && QUANTIFIER.test(source.slice(i)))) {
      // The atom before may be absent: it is not required text.
      const min = c === '{' ? Number(/^\{(\d+)/.exec(source.slice(i))![1]) : 0;
      if (min === 0) run = run.slice(0, -1);
      flush();
      if (c === '{') i = source.indexOf('}', i);
    } else if (c === '+' || c === '.' || c === '^' || c === '$') {
      // A repeated atom stays (once at least), but the run ends; so at any wildcard or anchor.
      flush();
    } else if (depth === 0) {
      run += c;
    }
  }
  flush();
  return best;
}
