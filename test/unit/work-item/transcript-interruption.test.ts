import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  interruptionAfter,
  interruptionIn,
  sizeOrZero,
} from '../../../src/work-item/transcript-interruption';

const entry = (type: string, content: unknown) => JSON.stringify({ type, message: { role: type, content } });

describe('a turn a person interrupted, read from the transcript', () => {
  it('finds Claude Code’s marker in a user entry, as text or as a text block', () => {
    expect(interruptionIn(entry('user', '[Request interrupted by user]'))).toBe(
      '[Request interrupted by user]',
    );
    const blocks = [{ type: 'text', text: '[Request interrupted by user for tool use]' }];
    expect(interruptionIn(`${entry('assistant', 'hi')}\n${entry('user', blocks)}\n`)).toBe(
      '[Request interrupted by user for tool use]',
    );
  });

  it('a prompt that quotes the marker, an assistant that says it, or a torn line is no interruption', () => {
    expect(interruptionIn(entry('user', 'why do I see [Request interrupted by user] here?'))).toBeNull();
    expect(interruptionIn(entry('assistant', '[Request interrupted by user]'))).toBeNull();
    expect(interruptionIn(entry('user', '[Request interrupted by user]').slice(0, -3))).toBeNull();
    expect(interruptionIn('')).toBeNull();
  });

  it('looks only after where the turn began', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tl-transcript-')), 'session.jsonl');
    // as the worker reads it: its size now, then the part written since the turn began
    const after = async (offset: number) => interruptionAfter(file, offset, await sizeOrZero(file));
    expect(await sizeOrZero(file)).toBe(0);
    expect(await after(0)).toBeNull();
    writeFileSync(file, `${entry('user', '[Request interrupted by user]')}\n`);
    const offset = await sizeOrZero(file);
    expect(await after(0)).toBe('[Request interrupted by user]');
    expect(await after(offset)).toBeNull();
    appendFileSync(file, `${entry('user', 'the next prompt')}\n`);
    expect(await after(offset)).toBeNull();
    appendFileSync(
      file,
      `${entry('user', [{ type: 'text', text: '[Request interrupted by user for tool use]' }])}\n`,
    );
    expect(await after(offset)).toBe('[Request interrupted by user for tool use]');
  });
});
