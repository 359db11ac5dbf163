import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PRICES } from '../../../src/pricing/prices';
import { lastTurnUsage, settledTurnUsage } from '../../../src/work-item/turn-usage';

const entry = (value: Record<string, unknown>) => JSON.stringify(value);
const assistant = (
  id: string,
  tokens: { input: number; output: number; cacheRead?: number },
  stop = 'end_turn',
  model = 'claude-sonnet-4-5-20250929',
) =>
  entry({
    type: 'assistant',
    message: {
      id,
      model,
      stop_reason: stop,
      content: [{ type: 'text', text: 'x' }],
      usage: {
        input_tokens: tokens.input,
        output_tokens: tokens.output,
        cache_read_input_tokens: tokens.cacheRead ?? 0,
      },
    },
  });
const prompt = (text: string) => entry({ type: 'user', message: { role: 'user', content: text } });
const toolResult = entry({
  type: 'user',
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] },
});
const fixture = (name: string) =>
  readFileSync(join(__dirname, '../../fixtures/claude-transcripts', name), 'utf8');

describe("a hosted turn's usage, from claude's transcript", () => {
  it('sums the last turn only: a tool result does not start a turn, a prompt does; priced by model', () => {
    const transcript = [
      prompt('first'),
      assistant('m1', { input: 100, output: 10 }),
      prompt('second'),
      assistant('m2', { input: 200, output: 20, cacheRead: 1000 }, 'tool_use'),
      toolResult,
      assistant('m3', { input: 300, output: 30 }),
      '{"torn',
    ].join('\n');
    const turn = lastTurnUsage(transcript, DEFAULT_PRICES);
    expect(turn?.usage).toMatchObject({
      input_tokens: 500,
      output_tokens: 50,
      cache_read_input_tokens: 1000,
      num_turns: 1,
    });
    // Sonnet 4.5: $3 in, $15 out, $0.30 cache read per million
    expect(turn?.usage.cost_usd).toBe((500 * 3 + 50 * 15 + 1000 * 0.3) / 1e6);
    expect(turn).toMatchObject({ unpriced: [], complete: true });
    expect(lastTurnUsage(prompt('only a prompt'), DEFAULT_PRICES)).toBeNull();
  });

  it('counts a message once when claude writes it as two entries (recorded from the real claude 2.1.197)', () => {
    // One model message with a text block and a tool_use block is two transcript entries, each with the message's
    // whole usage; the mock served 111+5 in, 22+6 out, 333 cache read, 44 cache write, and claude itself reported
    // total_cost_usd 0.0017215 for it.
    const turn = lastTurnUsage(fixture('tool-use-message-in-two-entries.jsonl'), DEFAULT_PRICES);
    expect(turn?.usage).toMatchObject({
      input_tokens: 116,
      output_tokens: 28,
      cache_read_input_tokens: 333,
      cache_creation_input_tokens: 44,
    });
    expect(turn?.usage.cost_usd).toBeCloseTo(0.0017215, 6);
  });

  it('reads the entries in the order they happened, not the order claude appended them', () => {
    // Recorded from the real claude 2.1.197 under the stress test's burners: the kickoff's reply (with its usage) is
    // in the file before the slash command's prompt entries that it answers.
    const recorded = fixture('reply-written-before-its-prompt.jsonl');
    const types = recorded
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types.indexOf('assistant')).toBeLessThan(types.indexOf('user'));
    expect(lastTurnUsage(recorded, DEFAULT_PRICES)?.usage.output_tokens).toBe(20);
  });

  it('names a model with no price and leaves its cost out, never $0.00 silently', () => {
    const transcript = [
      prompt('go'),
      assistant('a', { input: 10, output: 1 }, 'tool_use', 'claude-mystery-9'),
      toolResult,
      assistant('b', { input: 1_000_000, output: 0 }),
    ].join('\n');
    const turn = lastTurnUsage(transcript, DEFAULT_PRICES);
    expect(turn?.unpriced).toEqual(['claude-mystery-9']);
    expect(turn?.usage.cost_usd).toBe(3);
    expect(turn?.usage.input_tokens).toBe(1_000_010);
  });

  it('waits for the rest of a turn that claude writes after its Stop hook, and for a file not yet there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turn-usage-'));
    const file = join(dir, 't.jsonl');
    writeFileSync(
      file,
      [prompt('go'), assistant('a', { input: 10, output: 2 }, 'tool_use'), toolResult].join('\n'),
    );
    const settled = settledTurnUsage(file, DEFAULT_PRICES);
    setTimeout(() => appendFileSync(file, `\n${assistant('b', { input: 5, output: 1 })}`), 300);
    expect((await settled)?.usage).toMatchObject({ input_tokens: 15, output_tokens: 3 });

    const late = join(dir, 'late.jsonl');
    const waiting = settledTurnUsage(late, DEFAULT_PRICES);
    setTimeout(
      () => writeFileSync(late, [prompt('go'), assistant('c', { input: 7, output: 1 })].join('\n')),
      300,
    );
    expect((await waiting)?.usage.input_tokens).toBe(7);
    // what there is once the settle time is over: a turn cut short, or nothing at all
    const cut = join(dir, 'cut.jsonl');
    writeFileSync(cut, [prompt('go'), assistant('d', { input: 3, output: 1 }, 'tool_use')].join('\n'));
    expect(await settledTurnUsage(cut, DEFAULT_PRICES, 300)).toMatchObject({ complete: false });
    expect(await settledTurnUsage(join(dir, 'missing'), DEFAULT_PRICES, 300)).toBeNull();
  });
});
