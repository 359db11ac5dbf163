import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeterminismViolationError } from '@temporalio/workflow';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { testServer } from '../support/temporal';

// The determinism guard: histories of real sessions (recorded with scripts/record-history.ts) replay against the
// current workflow bundle. A workflow change that alters the commands of a recorded history without patched()
// fails here.
const HISTORIES = join(__dirname, '..', 'histories');
const files = readdirSync(HISTORIES)
  .filter((name) => name.endsWith('.json'))
  .sort();

function load(file: string): { workflowId: string; history: unknown } {
  return {
    workflowId: file.replace(/\.json$/, ''),
    history: JSON.parse(readFileSync(join(HISTORIES, file), 'utf8')),
  };
}

function payloadTexts(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(payloadTexts);
  if (value === null || typeof value !== 'object') return [];
  const record = value as Record<string, unknown>;
  const own =
    typeof record.data === 'string' && record.metadata ? [Buffer.from(record.data, 'base64').toString()] : [];
  return [...own, ...Object.values(record).flatMap(payloadTexts)];
}

const quiet = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} };

describe('recorded histories replay against the current workflow code', () => {
  it('there are recorded histories, including one with a crash and salvage', () => {
    expect(files.length).toBeGreaterThanOrEqual(2);
    // Payloads are base64 in JSON histories: decode them to find the abandoned turn and its salvage report.
    const decoded = files.map((f) =>
      payloadTexts(JSON.parse(readFileSync(join(HISTORIES, f), 'utf8'))).join('\n'),
    );
    expect(decoded.some((t) => t.includes('iteration_abandoned') && t.includes('salvage.json'))).toBe(true);
  });

  it.each(files)('%s', async (file) => {
    const results = [];
    for await (const result of Worker.runReplayHistories(
      { workflowBundle: { codePath: testServer().bundlePath } },
      [load(file)],
    )) {
      results.push(result);
    }
    expect(results).toHaveLength(1);
    expect(results[0]?.error).toBeUndefined();
  });

  it('a changed workflow without patched() fails the replay', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: require.resolve('../fixtures/replay/changed-workflows'),
      logger: quiet,
    });
    const first = files[0];
    if (!first) throw new Error('no recorded history');
    const results = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: { code } }, [load(first)])) {
      results.push(result);
    }
    expect(results[0]?.error).toBeInstanceOf(DeterminismViolationError);
  });
});
