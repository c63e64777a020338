// Loads the CLI bundle (one CommonJS script) with a V8 code cache of its own,
// one per command, written once that command has run: it then holds every
// function the run compiled. Node's compile cache is made when a module is
// first compiled and so holds only its top level; the functions called later
// were compiled again on every start (about a fifth of a diagnosis's CPU).
//
// The cache is found by the bundle's length and checksum (V8 itself checks
// only the length of the source) and Node's version; it lives beside Node's
// own compile cache ($NODE_COMPILE_CACHE, else <tmp>/node-compile-cache), in a
// folder of this user's only. Any failure to read or write it just means a run
// compiles as if there were none.
const { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { tmpdir } = require('node:os');
const { dirname, join } = require('node:path');
const vm = require('node:vm');
const zlib = require('node:zlib');

const WRAPPER = '(function (exports, require, module, __filename, __dirname) {';

function cacheDir() {
  const uid = process.getuid?.() ?? 'user';
  const dir = join(process.env.NODE_COMPILE_CACHE || join(tmpdir(), 'node-compile-cache'), `kafka-responder-${uid}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const s = statSync(dir);
    // Someone else's folder (a shared temp dir) is not trusted with code.
    if (process.getuid && (s.uid !== process.getuid() || (s.mode & 0o022) !== 0)) return null;
    return dir;
  } catch {
    return null;
  }
}

function checksum(bytes) {
  // zlib.crc32: Node >= 22.2 (well under a millisecond); older Node hashes instead (node:crypto
  // is not loaded otherwise: a plaintext diagnosis never needs it).
  if (typeof zlib.crc32 === 'function') return zlib.crc32(bytes).toString(16);
  return process.getBuiltinModule('node:crypto').createHash('sha1').update(bytes).digest('hex').slice(0, 16);
}

/**
 * The bundle's exports; whether its code came from this command's cache; and
 * what writes that cache once the command has run (when it was missing or stale).
 */
function loadBundle(file, command) {
  const bytes = readFileSync(file);
  // ASCII (scripts/build-cli.mjs makes sure): read as Latin-1, a copy, not a UTF-8 decode (8 ms).
  const source = bytes.toString('latin1');
  const dir = cacheDir();
  const name = /^[a-z][a-z-]{0,30}$/.test(command) ? command : 'other';
  const base = `${name}-${process.version}-${process.arch}-`;
  const cacheFile = dir && join(dir, `${base}${bytes.length}-${checksum(bytes)}.v8`);
  let cachedData;
  try {
    if (cacheFile) cachedData = readFileSync(cacheFile);
  } catch {
    // none yet
  }
  const script = new vm.Script(`${WRAPPER}${source}\n})`, {
    filename: file,
    columnOffset: -WRAPPER.length,
    ...(cachedData ? { cachedData } : {}),
    // The bundle's import() of Node's own modules goes through Node's loader.
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  const saveCodeCache = () => {
    if (!cacheFile || (cachedData && !script.cachedDataRejected)) return;
    try {
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
      renameSync(tmp, cacheFile);
      // This command's caches of earlier builds will not be read again.
      for (const f of readdirSync(dir)) if (f.startsWith(base) && f.endsWith('.v8') && join(dir, f) !== cacheFile) rmSync(join(dir, f), { force: true });
    } catch {
      // a run without a cache is only slower
    }
  };
  return { exports: module.exports, saveCodeCache, cacheHit: cachedData !== undefined && !script.cachedDataRejected };
}

module.exports = { loadBundle };
