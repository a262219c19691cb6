// Bundles the extension with esbuild: the host (Node, CommonJS, `vscode` external; the MCP client and the
// tokenizer tables in files of their own, loaded on first use), the chat webview
// (browser IIFE plus its stylesheet), the prompt CLI, and the assets they load at run time (sql.js's
// wasm, the codicon font). Everything lands in dist/, so the .vsix needs no node_modules.
// Flags: --production minifies without sourcemaps (what the .vsix ships); --watch rebuilds on change.
// A missing entry point or asset fails the build: a .vsix without it would install and then break.
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const watch = args.has('--watch');

/** Fails the build on a bundling error but keeps going in watch mode, where the next save fixes it. */
const reportPlugin = {
  name: 'arbor-report',
  setup(build) {
    let builds = 0;
    build.onEnd((result) => {
      builds++;
      const out = build.initialOptions.outfile ? path.relative(root, build.initialOptions.outfile) : '?';
      if (result.errors.length > 0) console.error(`[build] ${out}: ${result.errors.length} error(s)`);
      else if (watch && builds > 1) console.log(`[build] ${out} rebuilt`);
    });
  },
};

/**
 * gpt-tokenizer's rank tables (about 3.5 MB of JS) are loaded only when a chat first counts OpenAI tokens:
 * the host bundle leaves each encoding to a file of its own in dist/tokenizer/, required on first use,
 * so activation does not parse them.
 */
const TOKENIZER_ENCODINGS = ['o200k_base', 'cl100k_base'];
const tokenizerPlugin = {
  name: 'arbor-tokenizer',
  setup(build) {
    build.onResolve({ filter: /^gpt-tokenizer\/encoding\/[a-z0-9_]+$/ }, (args) => {
      const name = args.path.split('/').pop();
      if (!TOKENIZER_ENCODINGS.includes(name)) return { errors: [{ text: `${args.path} is not built into dist/tokenizer/; add it to TOKENIZER_ENCODINGS` }] };
      return { path: `./tokenizer/${name}.js`, external: true };
    });
  },
};

/**
 * The MCP client (src/host/mcp/mcpRuntime.ts, with the MCP SDK and zod) is loaded only when a chat first
 * asks for tools or a server is restarted: the host's `import('./mcpRuntime')` becomes a require of
 * dist/mcp.js, a bundle of its own, so activation does not parse it.
 */
const MCP_RUNTIME = path.join(root, 'src/host/mcp/mcpRuntime.ts');
const mcpRuntimePlugin = {
  name: 'arbor-mcp-runtime',
  setup(build) {
    build.onResolve({ filter: /^\.\/mcpRuntime$/ }, (args) => {
      if (path.join(args.resolveDir, 'mcpRuntime.ts') !== MCP_RUNTIME) return undefined;
      if (args.kind !== 'dynamic-import') {
        return { errors: [{ text: `${path.relative(root, args.importer)} imports mcpRuntime statically; only import('./mcpRuntime') keeps the MCP SDK out of dist/extension.js` }] };
      }
      return { path: './mcp.js', external: true };
    });
  },
};

/**
 * jsonc-parser's `main` is a UMD build whose `require('./impl/format')` calls esbuild cannot follow (the
 * bundle would fail at run time with "Cannot find module './impl/format'"): bundle its ES module build.
 */
const jsoncParserPlugin = {
  name: 'arbor-jsonc-parser',
  setup(build) {
    build.onResolve({ filter: /^jsonc-parser$/ }, () => ({ path: path.join(root, 'node_modules/jsonc-parser/lib/esm/main.js') }));
  },
};

const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  logLevel: 'warning',
  absWorkingDir: root,
  plugins: [reportPlugin],
  define: { 'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development') },
};

/** The bundles. */
const targets = [
  {
    entry: 'src/host/extension.ts',
    options: { platform: 'node', format: 'cjs', target: 'node20', external: ['vscode'], outfile: 'dist/extension.js', plugins: [reportPlugin, tokenizerPlugin, mcpRuntimePlugin, jsoncParserPlugin] },
  },
  {
    entry: 'src/host/mcp/mcpRuntime.ts',
    options: { platform: 'node', format: 'cjs', target: 'node20', outfile: 'dist/mcp.js', plugins: [reportPlugin, jsoncParserPlugin] },
  },
  ...TOKENIZER_ENCODINGS.map((name) => ({
    entry: `node_modules/gpt-tokenizer/cjs/encoding/${name}.js`,
    options: { platform: 'node', format: 'cjs', target: 'node20', outfile: `dist/tokenizer/${name}.js` },
  })),
  {
    entry: 'webview/main.ts',
    options: {
      platform: 'browser',
      format: 'iife',
      target: 'es2022',
      outfile: 'dist/webview/main.js',
      loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file', '.svg': 'file' },
    },
  },
  {
    entry: 'webview/styles.css',
    options: {
      outfile: 'dist/webview/main.css',
      loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file', '.svg': 'file' },
    },
  },
  {
    entry: 'src/core/promptFolder/cli.ts',
    options: {
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: 'dist/cli.js',
      banner: { js: '#!/usr/bin/env node' },
    },
  },
];

/** Files copied as they are: [from (relative to the repo), to (relative to dist/)]. */
const assets = [
  ['node_modules/sql.js/dist/sql-wasm.wasm', 'sql-wasm.wasm'],
  ['node_modules/@vscode/codicons/dist/codicon.css', 'codicons/codicon.css'],
  ['node_modules/@vscode/codicons/dist/codicon.ttf', 'codicons/codicon.ttf'],
];

async function copyAssets() {
  for (const [from, to] of assets) {
    const src = path.join(root, from);
    if (!existsSync(src)) {
      throw new Error(`${from} is missing: run npm ci (or npm run setup) first`);
    }
    const dest = path.join(dist, to);
    await mkdir(path.dirname(dest), { recursive: true });
    await copyFile(src, dest);
  }
}

async function main() {
  const started = performance.now();
  if (!watch) await rm(dist, { recursive: true, force: true });
  await mkdir(dist, { recursive: true });
  await copyAssets();

  const contexts = [];
  const built = [];
  for (const target of targets) {
    const options = { ...common, ...target.options, entryPoints: [target.entry] };
    options.outfile = path.join(root, options.outfile);
    if (watch) {
      const ctx = await esbuild.context(options);
      contexts.push(ctx);
      await ctx.watch();
    } else {
      await esbuild.build(options);
    }
    built.push(path.relative(root, options.outfile));
  }
  await chmod(path.join(dist, 'cli.js'), 0o755);

  const ms = Math.round(performance.now() - started);
  if (!watch) console.log(`[build] ${production ? 'production' : 'development'} build of ${built.join(', ')} in ${ms} ms`);
  if (watch) {
    console.log(`[build] watching ${built.join(', ')} (Ctrl+C to stop)`);
    const stop = async () => {
      await Promise.all(contexts.map((ctx) => ctx.dispose()));
      process.exit(0);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  }
}

main().catch((error) => {
  console.error(`[build] failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
