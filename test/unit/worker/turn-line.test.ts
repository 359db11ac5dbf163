import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastTurnUsage, summaryOf, turnLine } from '../../../src/worker/turn-line';

const entry = (value: Record<string, unknown>) => JSON.stringify(value);
const assistant = (input: number, output: number, cacheRead = 0) =>
  entry({
    type: 'assistant',
    message: {
      content: [{ type: 'text', text: 'x' }],
      usage: { input_tokens: input, output_tokens: output, cache_read_input_tokens: cacheRead },
    },
  });
const prompt = (text: string) => entry({ type: 'user', message: { role: 'user', content: text } });
const toolResult = entry({
  type: 'user',
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] },
});

describe("a turn's line in the work item's thread", () => {
  it('sums the usage of the last turn only: a tool result does not start a turn, a prompt does', () => {
    const transcript = [
      prompt('first'),
      assistant(100, 10),
      prompt('second'),
      assistant(200, 20, 1000),
      toolResult,
      assistant(300, 30),
      '{"torn',
    ].join('\n');
    expect(lastTurnUsage(transcript)).toEqual({ inputTokens: 1500, outputTokens: 50 });
    expect(lastTurnUsage(prompt('only a prompt'))).toBeNull();
  });

  it('reads the entries in the order they happened, not the order claude appended them', () => {
    // Recorded from the real claude 2.1.197 under the stress test's burners: the kickoff's reply (with its usage) is
    // in the file before the slash command's prompt entries that it answers.
    const recorded = readFileSync(
      join(__dirname, '../../fixtures/claude-transcripts/reply-written-before-its-prompt.jsonl'),
      'utf8',
    );
    const types = recorded
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.indexOf('assistant')).toBeLessThan(types.indexOf('user'));
    expect(lastTurnUsage(recorded)).not.toBeNull();
  });

  it('summarizes a reply by its first non-empty line, cut to a chat line', () => {
    expect(summaryOf('\n  Fixed the test.  \nDetails follow')).toBe('Fixed the test.');
    expect(summaryOf(null)).toBe('(no text reply)');
    const long = summaryOf('y'.repeat(500));
    expect(long).toHaveLength(200);
    expect(long.endsWith('…')).toBe(true);
  });

  it('names the cost when the transcript has it, and a failure by its first line', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'turn-line-')), 't.jsonl');
    writeFileSync(file, [prompt('go'), assistant(1234, 56)].join('\n'));
    expect(await turnLine(3, { reply: 'Done.', transcript: file })).toBe(
      'turn 3: Done. — cost: 1,234 tokens in, 56 out',
    );
    // a transcript that never shows the usage: the line goes out without a cost once the settle time is over
    expect(await turnLine(3, { reply: 'Done.', transcript: join(file, 'missing') }, 500)).toBe(
      'turn 3: Done.',
    );
    expect(await turnLine(4, { error: 'the pane died\nlast lines' })).toBe('turn 4 failed: the pane died');
  });

  it("waits for the turn's usage that claude writes to its transcript just after its Stop hook", async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'turn-line-')), 't.jsonl');
    writeFileSync(file, prompt('go'));
    const line = turnLine(5, { reply: 'Done.', transcript: file });
    setTimeout(() => appendFileSync(file, `\n${assistant(10, 2)}`), 300);
    expect(await line).toBe('turn 5: Done. — cost: 10 tokens in, 2 out');
  });

  it('waits for a transcript file that claude has not written yet', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'turn-line-')), 't.jsonl');
    const line = turnLine(6, { reply: 'Done.', transcript: file });
    setTimeout(() => writeFileSync(file, [prompt('go'), assistant(7, 1)].join('\n')), 300);
    expect(await line).toBe('turn 6: Done. — cost: 7 tokens in, 1 out');
  });
});
