// Bundles the extension (out/extension.js) and each test (out-test/*.test.js) with esbuild.
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';

const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], logLevel: 'warning' };
rmSync('out', { recursive: true, force: true });
rmSync('out-test', { recursive: true, force: true });
await build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'out/extension.js', minify: true, sourcemap: false });
const tests = readdirSync('test').filter((name) => name.endsWith('.test.ts')).map((name) => `test/${name}`);
await build({ ...common, entryPoints: tests, outdir: 'out-test', sourcemap: 'inline' });
