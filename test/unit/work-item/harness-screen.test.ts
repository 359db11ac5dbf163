import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastLines, showsPrompt, showsReady, showsWorking } from '../../../src/work-item/harness-screen';

// Screens captured (tmux capture-pane -p -J) from the real Claude Code 2.1.197 hosted by the-loop: the first node's
// slash command running its `!the-loop item show`, the input box idle after a turn, a Bash permission prompt, and the
// same pane once the prompt was answered (its command running).
const screen = (name: string) =>
  readFileSync(join(__dirname, '../../fixtures/claude-screens', `${name}.txt`), 'utf8');
const working = screen('working-slash-command');
const idle = screen('idle-after-turn');
const prompt = screen('permission-prompt');
const answered = screen('prompt-answered-tool-running');

describe('what the harness TUI shows', () => {
  it('claude working on a submitted prompt, before its turn-started report: working, and ready', () => {
    expect(showsWorking('claude', working)).toBe(true);
    expect(showsReady('claude', working)).toBe(true);
  });

  it('claude idle after a turn: ready, not working', () => {
    expect(showsWorking('claude', idle)).toBe(false);
    expect(showsReady('claude', idle)).toBe(true);
  });

  it('the words in the transcript, above the footer, are not the marker', () => {
    const agentWrote = idle.replace('● received: event please', '● press esc to interrupt a turn');
    expect(agentWrote).toContain('esc to interrupt');
    expect(showsWorking('claude', agentWrote)).toBe(false);
  });

  it('a harness without markers is never seen working, nor ready by its screen', () => {
    expect(showsWorking('cursor', working)).toBe(false);
    expect(showsReady('cursor', working)).toBe(false);
  });

  it('a permission prompt shows until it is answered, whichever answer is selected', () => {
    expect(prompt).toContain('❯ 1. Yes');
    expect(showsPrompt('claude', prompt)).toBe(true);
    expect(showsPrompt('claude', prompt.replace('❯ 1. Yes', '  1. Yes').replace('  3. No', '❯ 3. No'))).toBe(
      true,
    );
    expect(showsPrompt('claude', answered)).toBe(false);
    expect(showsPrompt('claude', idle)).toBe(false);
    expect(showsPrompt('claude', working)).toBe(false);
    expect(showsPrompt('cursor', prompt)).toBe(false);
  });

  it('lastLines keeps the last lines that show something, trimmed', () => {
    expect(lastLines('a  \n\n b \n   \nc\n', 2)).toEqual([' b', 'c']);
  });
});
