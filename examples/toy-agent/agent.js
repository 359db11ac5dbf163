#!/usr/bin/env node
// A toy "agent" for the `command` harness: offline and deterministic, but it does real work in a real git
// repository, one small step per iteration, and stops the loop through control.json once the check passes.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const cwd = process.cwd();
const git = (...args) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const say = (line) => process.stdout.write(`${line}\n`);

const CHECK = `const { execFileSync } = require('node:child_process');
const want = Array.from({ length: 15 }, (_, i) => i + 1).map((n) =>
  n % 15 === 0 ? 'FizzBuzz' : n % 3 === 0 ? 'Fizz' : n % 5 === 0 ? 'Buzz' : String(n));
const got = execFileSync(process.execPath, ['fizzbuzz.js', '15'], { encoding: 'utf8' }).trim().split('\\n');
const bad = want.findIndex((w, i) => got[i] !== w);
if (bad >= 0 || got.length !== want.length) { console.error('line ' + (bad + 1) + ': want ' + want[bad] + ', got ' + got[bad]); process.exit(1); }
console.log('check passed: 15 lines correct');
`;

// Each step rewrites fizzbuzz.js a little closer to the goal, like an agent making incremental progress.
const STEPS = [
  ['print the numbers', 'n => String(n)'],
  ['replace multiples of 3 with Fizz', "n => (n % 3 === 0 ? 'Fizz' : String(n))"],
  ['replace multiples of 5 with Buzz', "n => (n % 3 === 0 ? 'Fizz' : n % 5 === 0 ? 'Buzz' : String(n))"],
  [
    'handle multiples of 15',
    "n => (n % 15 === 0 ? 'FizzBuzz' : n % 3 === 0 ? 'Fizz' : n % 5 === 0 ? 'Buzz' : String(n))",
  ],
];

function runCheck() {
  try {
    return {
      ok: true,
      out: execFileSync(process.execPath, ['check.js'], { cwd, encoding: 'utf8', stdio: 'pipe' }).trim(),
    };
  } catch (error) {
    return { ok: false, out: String(error.stderr || error.message).trim() };
  }
}

if (!fs.existsSync(path.join(cwd, '.git'))) {
  git('init', '-q');
  git('config', 'user.email', 'toy-agent@example.invalid');
  git('config', 'user.name', 'toy agent');
}
const projectState = path.join(process.env.LOOPY_SESSION_DIR || '.', 'project_state');
const stateFile = path.join(projectState, 'current_state.md');
const done = fs.existsSync(stateFile)
  ? Number((/steps done: (\d+)/.exec(fs.readFileSync(stateFile, 'utf8')) || [])[1] || 0)
  : 0;

if (!fs.existsSync(path.join(cwd, 'check.js'))) {
  fs.writeFileSync(path.join(cwd, 'check.js'), CHECK);
  git('add', 'check.js');
  git('commit', '-q', '-m', 'Add the acceptance check');
  say('planned: wrote check.js (the acceptance check) and committed it');
} else {
  const step = STEPS[Math.min(done, STEPS.length - 1)];
  fs.writeFileSync(
    path.join(cwd, 'fizzbuzz.js'),
    `const say = ${step[1]};\nconst n = Number(process.argv[2] || 15);\nfor (let i = 1; i <= n; i++) console.log(say(i));\n`,
  );
  git('add', 'fizzbuzz.js');
  git('commit', '-q', '-m', `fizzbuzz: ${step[0]}`);
  say(`step ${done + 1}: ${step[0]} (committed ${git('rev-parse', '--short', 'HEAD').trim()})`);
}

const check = runCheck();
fs.mkdirSync(projectState, { recursive: true });
const stepsDone = fs.existsSync(path.join(cwd, 'fizzbuzz.js')) ? Math.min(done + 1, STEPS.length) : 0;
fs.writeFileSync(
  stateFile,
  `# current state\n\nsteps done: ${stepsDone}\nlatest check: ${check.ok ? 'pass' : 'fail'} — ${check.out.split('\n')[0]}\n`,
);
say(`check: ${check.out.split('\n')[0]}`);
if (process.env.LOOPY_ROUTINE_ID === 'goal_check' && process.env.LOOPY_ITERATION_DIR) {
  const verdict = { goal_met: check.ok, reason: check.out.split('\n')[0], schema_version: 1 };
  fs.writeFileSync(
    path.join(process.env.LOOPY_ITERATION_DIR, 'goal_check.json'),
    JSON.stringify(verdict) + '\n',
  );
}
if (check.ok && process.env.LOOPY_CONTROL_FILE) {
  fs.writeFileSync(
    process.env.LOOPY_CONTROL_FILE,
    JSON.stringify({ state: 'stopped', reason: `goal met: ${check.out}` }) + '\n',
  );
}
// The command harness reads usage from a last line of JSON.
say(JSON.stringify({ usage: { input_tokens: 0, output_tokens: 0 }, cost_usd: 0 }));
