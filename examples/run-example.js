#!/usr/bin/env node
// `npm run example`: a real goal session on the embedded Temporal, with the offline toy agent working in a fresh
// scratch git repository. Extra arguments go to `loopy run` (e.g. --detach, --format jsonl).
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'the-loop-example-'));
const here = __dirname;
process.stderr.write(`scratch repository: ${scratch}\n`);
const result = spawnSync(
  process.execPath,
  [
    path.join(here, '..', 'bin', 'loopy'),
    'run',
    '--cwd',
    scratch,
    '--goal-file',
    path.join(here, 'toy-agent', 'goal.md'),
    '--harness',
    'command',
    '--harness-command',
    `node ${path.join(here, 'toy-agent', 'agent.js')}`,
    '--max-iterations',
    '10',
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
process.stderr.write(`\nthe session directory is under ${path.join(scratch, '.loopy_loop', 'sessions')}\n`);
process.exit(result.status ?? 1);
