#!/usr/bin/env node
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

// `--version` alone answers from package.json: the CLI's modules are not worth loading for one line.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(require('../package.json').version + '\n');
  return;
}

const entry = join(__dirname, '..', 'dist', 'src', 'cli', 'main.js');
if (!existsSync(entry)) {
  process.stderr.write(
    'the-loop: not built yet — run `npm install` (or `npm run build`) in ' + join(__dirname, '..') + '\n',
  );
  process.exit(1);
}
// Compiled code of the CLI's modules kept between runs (src/cli/compile-cache.ts): most of what a command costs.
require(join(__dirname, '..', 'dist', 'src', 'cli', 'compile-cache.js')).installCompileCache();
require(entry)
  .main(process.argv)
  .then((code) => {
    process.exitCode = code;
  });
