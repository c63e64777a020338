import * as esbuild from 'esbuild';
import handlerPlugins from '/work/main/handlers/build/esbuild-plugins.cjs';
const r = await esbuild.build({ absWorkingDir: '/work/main', entryPoints: ['lib/cli/main.ts'], bundle: true, platform: 'node', format: 'cjs', target: 'node20', minify: true, write: false, metafile: true, outfile: '/tmp/x.cjs', define: { 'import.meta.url': '__krImportMetaUrl', KR_BUNDLE_COMMAND: '"diagnose"' }, plugins: [...handlerPlugins, { name: 'stub', setup(b) { b.onResolve({ filter: /^level$/ }, () => ({ path: 'level', external: true })); } }], logLevel: 'error' });
const inputs = r.metafile.inputs;
const target = process.argv[2];
// BFS from entry
const prev = new Map([['lib/cli/main.ts', null]]); const q = ['lib/cli/main.ts'];
while (q.length) { const f = q.shift(); for (const i of inputs[f]?.imports ?? []) { if (!i.path || prev.has(i.path)) continue; prev.set(i.path, f); q.push(i.path); } }
for (const f of Object.keys(inputs)) if (f.includes(target)) { const path = []; let c = f; while (c) { path.push(c); c = prev.get(c); } console.log(path.reverse().join('\n  -> ')); break; }
