import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';

import { claudeTranscriptFile } from '../../../src/harness/claude-transcript';
import { startGoalSession } from '../../../src/cli/start-session';
import { parseRoutinesYaml } from '../../../src/config/routines';
import { readJsonFile, readJsonIfExists } from '../../../src/session/json-file';
import { readJsonl } from '../../../src/session/jsonl';
import { iterationPaths, sessionPaths } from '../../../src/session/paths';
import {
  resultFileSchema,
  sessionEventSchema,
  sessionStateFileSchema,
  type SessionStateFile,
} from '../../../src/session/schemas';
import { messagesText, realClaudeBin, type MockAnthropic } from '../../support/mock-anthropic';
import { runCli } from '../../support/cli';
import { useClaudeGoalWorker } from '../../support/claude-goal-worker';
import { testConfig, testServer } from '../../support/temporal';

/**
 * Goal loops driving the REAL claude CLI against the mock Anthropic API, under the default configuration (only the
 * executable is named, since this install has no node_modules/.bin). The worker runs in this process, so the
 * harness inherits this process's environment: the mock's URL, a dummy key and a scratch HOME.
 */
describe('goal loops with the real claude CLI', () => {
  const config = testConfig({ harness: { claude: { command: realClaudeBin() } } });
  const used = useClaudeGoalWorker(config);
  let client: Client;
  let mock: MockAnthropic;
  beforeAll(() => ({ client, mock } = used));
  const { sessionInput } = used;

  function events(sessionDir: string) {
    return readJsonl(sessionPaths(sessionDir).events, sessionEventSchema);
  }

  /** A `worker` routine that continues its conversation from turn to turn. */
  const continuing = () =>
    parseRoutinesYaml(
      [
        'workflows:',
        '  - id: worker',
        '    prompt: "Next step of {goal}"',
        '    harness_options: { conversation: continue }',
      ].join('\n'),
      'wf.yaml',
    );

  /** state.json once the session is paused for `why`, read as it polls (up to two minutes). */
  async function pausedFor(
    sessionDir: string,
    why: (state: SessionStateFile) => unknown,
  ): Promise<SessionStateFile | null> {
    for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
      const state = readJsonIfExists(sessionPaths(sessionDir).state, sessionStateFileSchema);
      if (state?.status === 'paused' && why(state)) return state;
      await new Promise((r) => setTimeout(r, 200));
    }
    return null;
  }

  /** `loopy …` in the session's directory, on the test worker's queue (a the-loop.yaml written there). */
  function loopyIn(input: { cwd: string; taskQueue: string }) {
    const configFile = join(input.cwd, 'the-loop.yaml');
    writeFileSync(configFile, `temporal:\n  taskQueue: ${input.taskQueue}\nworker:\n  hostId: testhost\n`);
    const env = { TEMPORAL_ADDRESS: testServer().address, THE_LOOP_CONFIG: configFile };
    return (...args: string[]) => runCli(args, { env, cwd: input.cwd, name: 'loopy' });
  }

  it('the agent stops the loop by writing control.json with its Write tool under the default config', async () => {
    const input = sessionInput('stop through control.json', { maxIterations: 3 });
    const control = sessionPaths(input.sessionDir).control;
    // Write refuses a file it has not read: Read, then Write, then the closing text.
    mock.reply(
      { toolUses: [{ name: 'Read', input: { file_path: control } }] },
      {
        toolUses: [
          {
            name: 'Write',
            input: { file_path: control, content: '{"state": "stopped", "reason": "goal met"}\n' },
          },
        ],
      },
      { text: 'stopped the loop' },
    );
    const handle = await startGoalSession(client, input);
    const result = await handle.result();
    expect(result.stop).toMatchObject({ kind: 'control', reason: 'goal met' });
    expect(result.iterations).toBe(1);

    const turn = readJsonFile(iterationPaths(input.sessionDir, 1, 'planner').result, resultFileSchema);
    expect(turn).toMatchObject({ success: true, text: 'stopped the loop' });
    expect(turn.permission_denials).toBeUndefined();
    expect(turn.harness_session_id).toMatch(/^[0-9a-f-]{36}$/);
    const finished = events(input.sessionDir).find((e) => e.type === 'iteration_finished');
    expect(finished?.data?.['harness_session_id']).toBe(turn.harness_session_id);
    // The prompt named the literal control path, and the real CLI sent it to the model.
    expect(messagesText(mock.agentCalls().at(-3) ?? null)).toContain(control);
    expect(readFileSync(join(input.cwd, '.loopy_loop', '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('a denied tool call is recorded, and a turn whose every call was denied waits for a person, not failed on', async () => {
    const routines = parseRoutinesYaml(
      [
        'workflows:',
        '  - id: worker',
        '    prompt: "Work on {goal}"',
        '    harness_options: { permission_mode: default }',
      ].join('\n'),
      'wf.yaml',
    );
    const input = sessionInput('denied writes', { maxIterations: 1, routines });
    mock.reply(
      { toolUses: [{ name: 'Write', input: { file_path: join(input.cwd, 'x.txt'), content: 'x' } }] },
      { text: 'could not write' },
    );
    const handle = await startGoalSession(client, input);
    const denied = await pausedFor(input.sessionDir, (state) => state.dispatch.denied);
    expect(denied?.dispatch.denied).toMatchObject({ tools: ['Write'], count: 1, iteration: 1 });
    const turn = readJsonFile(iterationPaths(input.sessionDir, 1, 'worker').result, resultFileSchema);
    expect(turn.success).toBe(false);
    expect(turn.permission_denials).toEqual({ count: 1, tools: ['Write'] });
    expect(turn.error).toMatch(/refused every tool call/);
    const finished = events(input.sessionDir).find((e) => e.type === 'iteration_finished');
    expect(finished?.data?.['permission_denials']).toEqual({ count: 1, tools: ['Write'] });
    const loopy = loopyIn(input);
    const status = await loopy('status', input.sessionId);
    expect(status.stdout).toMatch(
      /^waiting {5}permission since \S+Z \(\d+s\): iteration 1: claude was refused a call of Write — allow the tool/m,
    );
    // a person lets it go on (here: without the tool)
    const resume = await loopy('resume', input.sessionId);
    expect(resume.code).toBe(0);
    const result = await handle.result();
    expect(result.stop.kind).toBe('max_iterations');
    const types = events(input.sessionDir).map((e) => e.type);
    expect(types.indexOf('permission_refused')).toBeLessThan(types.indexOf('session_resumed'));
  });

  it('conversation continue resumes across iterations: the model sees the earlier turn', async () => {
    const routines = continuing();
    const input = sessionInput('a conversation', { maxIterations: 2, routines });
    mock.reply({ text: 'first turn says: kumquat' }, { text: 'second turn' });
    const before = mock.agentCalls().length;
    const handle = await startGoalSession(client, input);
    await handle.result();
    const calls = mock.agentCalls().slice(before);
    expect(calls).toHaveLength(2);
    expect(messagesText(calls[1] ?? null)).toContain('first turn says: kumquat');
    const first = readJsonFile(iterationPaths(input.sessionDir, 1, 'worker').result, resultFileSchema);
    const second = readJsonFile(iterationPaths(input.sessionDir, 2, 'worker').result, resultFileSchema);
    expect(second.success).toBe(true);
    expect(second.harness_session_id).toBe(first.harness_session_id);
  });

  it('a conversation that cannot be resumed is reset: the turn runs in a new one, and loopy status says why', async () => {
    const routines = continuing();
    const input = sessionInput('a lost conversation', { maxIterations: 2, routines });
    // the first turn asks, so the session waits between the turns: its conversation is lost meanwhile
    mock.reply({ text: 'Which file first?' }, { text: 'second turn' });
    const handle = await startGoalSession(client, input);
    expect(await pausedFor(input.sessionDir, (state) => state.dispatch.asked)).not.toBeNull();
    const first = readJsonFile(iterationPaths(input.sessionDir, 1, 'worker').result, resultFileSchema);
    const lost = first.harness_session_id;
    expect(lost).toEqual(expect.any(String));
    rmSync(claudeTranscriptFile(input.cwd, lost ?? '', process.env));
    const loopy = loopyIn(input);
    expect((await loopy('update', input.sessionId, 'README')).code).toBe(0);
    await handle.result();
    const second = readJsonFile(iterationPaths(input.sessionDir, 2, 'worker').result, resultFileSchema);
    expect(second.success).toBe(true);
    expect(second.harness_session_id).not.toBe(lost);
    const reset = events(input.sessionDir).find((e) => e.type === 'conversation_reset');
    expect(reset).toMatchObject({ iteration: 2, data: { from: lost, to: second.harness_session_id } });
    const status = await loopy('status', input.sessionId);
    expect(status.stdout).toMatch(
      /^conversation reset at iteration 2: the harness could not resume the conversation/m,
    );
  });

  it('a budget overshoot is recorded at its real cost and stops the session with kind budget', async () => {
    const input = sessionInput('spend', { maxIterations: 3, maxCostUsd: 0.25 });
    // The default model's prices make 20k in + 8k out cost $0.30: over the $0.25 the CLI is given.
    mock.reply({ text: 'expensive', usage: { input_tokens: 20_000, output_tokens: 8_000 } });
    const handle = await startGoalSession(client, input);
    const result = await handle.result();
    expect(result.stop.kind).toBe('budget');
    expect(result.iterations).toBe(1);
    const state = readJsonFile(sessionPaths(input.sessionDir).state, sessionStateFileSchema);
    expect(state.stop.reason).toBe('budget: spent $0.30 of $0.25; the last call went over');
    expect(state.usage.total).toMatchObject({ input_tokens: 20_000, output_tokens: 8_000 });
    expect(state.usage.total.cost_usd).toBeCloseTo(0.3, 5);
    const turn = readJsonFile(iterationPaths(input.sessionDir, 1, 'planner').result, resultFileSchema);
    expect(turn.error).toMatch(/stopped at its budget .* cost \$0\.30: Reached maximum budget \(\$0\.25\)/);
  });

  it('an API error is worded from api_error_status and the message', async () => {
    const input = sessionInput('forbidden', { maxIterations: 1 });
    mock.reply({ status: 403, message: 'Forbidden: organization disabled' });
    const handle = await startGoalSession(client, input);
    await handle.result();
    const turn = readJsonFile(iterationPaths(input.sessionDir, 1, 'planner').result, resultFileSchema);
    expect(turn.success).toBe(false);
    expect(turn.error).toMatch(/^claude: the model API answered 403: .*Forbidden: organization disabled/);
  });

  it('a reply that ends on a question pauses the loop as waiting: question until loopy update answers it', async () => {
    const input = sessionInput('a question', { maxIterations: 2 });
    expect(input.waitOnQuestion).toBe(true);
    mock.reply(
      { text: 'I read the code.\n\nShould I keep the old API, or remove it?' },
      { text: 'removed it' },
    );
    const before = mock.agentCalls().length;
    const handle = await startGoalSession(client, input);
    const asked = await pausedFor(input.sessionDir, (state) => state.dispatch.asked);
    expect(asked?.dispatch.asked).toMatchObject({
      question: 'Should I keep the old API, or remove it?',
      iteration: 1,
    });
    // every view says so: loopy list and loopy status, from the files
    const loopy = loopyIn(input);
    const list = await loopy('list', '--status', 'waiting');
    expect(list.stdout).toMatch(new RegExp(`^${input.sessionId} +waiting: question `, 'm'));
    const status = await loopy('status', input.sessionId);
    expect(status.stdout).toMatch(
      /^waiting {5}question since \S+Z \(\d+s\): Should I keep the old API, or remove it\?$/m,
    );
    expect(mock.agentCalls().length - before).toBe(1); // nothing runs while it waits
    // and Temporal's visibility: the LoopWaiting search attribute, as work items have it
    const query = `LoopWaiting = "question" AND WorkflowId = "${input.sessionId}"`;
    let found = 0;
    for (const deadline = Date.now() + 60_000; found === 0 && Date.now() < deadline;) {
      for await (const _ of client.workflow.list({ query })) found += 1;
      if (found === 0) await new Promise((r) => setTimeout(r, 250));
    }
    expect(found).toBe(1);

    // the answer goes in as an update: the next turn runs, and reads it first
    const update = await loopy('update', input.sessionId, 'remove', 'it');
    expect(update.stderr).toBe('');
    expect(update.code).toBe(0);
    const result = await handle.result();
    expect(result.iterations).toBe(2);
    expect(messagesText(mock.agentCalls()[before + 1] ?? null)).toContain('remove it');
    const types = events(input.sessionDir).map((e) => e.type);
    expect(types.indexOf('question_asked')).toBeLessThan(types.indexOf('user_update'));
    expect(types).toContain('session_resumed');
  });
});
