import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { FAKE_CLAUDE, makeFixture, type Fixture } from './harness-fixture';

let fx: Fixture;
beforeEach(() => {
  fx = makeFixture();
});
afterEach(() => fx.cleanup());

function runFake(args: string[], input: string, scripted = true): Record<string, unknown> {
  const env: NodeJS.ProcessEnv = { ...process.env, FAKE_CLAUDE_STATE_DIR: fx.stateDir };
  if (scripted) env['FAKE_CLAUDE_SCRIPT'] = fx.scriptFile;
  const stdout = execFileSync(FAKE_CLAUDE, args, { input, cwd: fx.root, env }).toString();
  expect(stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(stdout) as Record<string, unknown>;
}

test('prints one result line like the real CLI, ignores unknown flags, counts runs', () => {
  fx.script([{ result: 'one', copy_prompt_to: 'copied.txt' }], { result: 'fallback', cost_usd: 0.1 });
  const first = runFake(
    ['-p', '--output-format', 'json', '--model', 'x', '--brand-new-flag', '--verbose'],
    'hello',
  );
  expect(first).toMatchObject({
    type: 'result',
    subtype: 'success',
    is_error: false,
    result: 'one',
    total_cost_usd: 0,
  });
  expect(typeof first['session_id']).toBe('string');
  expect(fs.readFileSync(path.join(fx.root, 'copied.txt'), 'utf8')).toBe('hello');
  const second = runFake(['--print', '--output-format=json', '--resume', 'abc'], 'again');
  expect(second).toMatchObject({ result: 'fallback', total_cost_usd: 0.1, session_id: 'abc' });
  expect(fx.runs().map((r) => r.n)).toEqual([1, 2]);
});

test('without a script every run is a free success', () => {
  const out = runFake(['-p', '--output-format', 'json'], 'x', false);
  expect(out).toMatchObject({ is_error: false, total_cost_usd: 0, result: 'fake claude run 1' });
});
