#!/usr/bin/env node
// Launcher of `arbor-prompts`: runs the bundled CLI (dist/cli.js, from `npm run build`) when it exists,
// otherwise the TypeScript source through tsx, so `npx arbor-prompts check` works right after `npm install`.
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS script node runs directly */
'use strict';
const fs = require('node:fs');
const path = require('node:path');

function load() {
  const bundled = path.join(__dirname, '..', 'dist', 'cli.js');
  if (fs.existsSync(bundled)) return require(bundled);
  const { require: tsxRequire } = require('tsx/cjs/api');
  return tsxRequire(path.join(__dirname, '..', 'src', 'core', 'promptFolder', 'cli.ts'), __filename);
}

load()
  .runPromptsCli(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  })
  .catch((err) => {
    console.error(`arbor-prompts: ${err && err.stack ? err.stack : err}`);
    process.exitCode = 2;
  });
