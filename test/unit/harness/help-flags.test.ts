import * as fs from 'node:fs';
import * as path from 'node:path';

import { claudeArgs } from '../../../src/harness/claude';
import { codexArgs } from '../../../src/harness/codex';
import type { HarnessRunRequest } from '../../../src/harness/types';

const HELP_DIR = path.resolve(__dirname, '../../fixtures/harness-help');
const helpText = (name: string): string => fs.readFileSync(path.join(HELP_DIR, name), 'utf8');

function request(overrides: Partial<HarnessRunRequest>): HarnessRunRequest {
  return {
    prompt: 'p',
    promptFile: '/s/iterations/0001_w/prompt.txt',
    cwd: '/w',
    sessionDir: '/s',
    iterationDir: '/s/iterations/0001_w',
    goalFile: '/s/goal.md',
    controlFile: '/s/control.json',
    outputDir: '/s/harness_outputs/0001_w/r',
    runId: 'r',
    iteration: 1,
    routineId: 'w',
    timeoutMs: 1000,
    options: { permissionMode: 'acceptEdits', maxBudgetUsd: 1 },
    ...overrides,
  };
}

/** Every option-looking word an adapter emits must be documented by the real CLI's --help. */
function flagsOf(args: string[]): string[] {
  // `--resume=<id>` names the flag `--resume`.
  return args.filter((a) => a.startsWith('-') && a !== '-').map((a) => a.split('=')[0] ?? a);
}

function expectDocumented(flags: string[], help: string): void {
  for (const flag of flags) {
    const documented = new RegExp(`(^|[\\s,])${flag.replace(/[-]/g, '\\-')}([\\s,=]|$)`, 'm').test(help);
    expect({ flag, documented }).toEqual({ flag, documented: true });
  }
}

test('claude flags appear in claude --help', () => {
  const help = helpText('claude.txt');
  const first = claudeArgs(request({ conversation: { id: 'u', resume: false } }));
  const later = claudeArgs(request({ conversation: { id: 'u', resume: true } }));
  expect(flagsOf(first)).toEqual([
    '-p',
    '--output-format',
    '--verbose',
    '--session-id',
    '--permission-mode',
    '--max-budget-usd',
  ]);
  expectDocumented([...flagsOf(first), ...flagsOf(later)], help);
  expect(help).toMatch(/"stream-json" \(realtime/);
  expect(help).toContain('"acceptEdits"');
});

test('codex exec flags and subcommand appear in codex exec --help', () => {
  const help = helpText('codex-exec.txt');
  const fresh = codexArgs(request({ options: { permissionMode: 'workspace-write' } }));
  const resumed = codexArgs(request({ options: {}, conversation: { id: 't1', resume: true } }));
  expect(fresh).toEqual([
    'exec',
    '--json',
    '--skip-git-repo-check',
    '-o',
    '/s/harness_outputs/0001_w/r/last_message.txt',
    '--sandbox',
    'workspace-write',
    '-',
  ]);
  expect(resumed.slice(-3)).toEqual(['resume', 't1', '-']);
  expectDocumented([...flagsOf(fresh), ...flagsOf(resumed)], help);
  expect(help).toMatch(/^\s+resume\s/m);
  expect(help).toMatch(/if `-` is used\),\s+instructions are read from stdin/);
  expect(help).toContain('workspace-write');
});
