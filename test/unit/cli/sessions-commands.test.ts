import { buildProgram } from '../../../src/cli/main';

describe('the sessions verbs are found by reading src/cli/commands/sessions/', () => {
  it('declares every verb file’s commands, in file-name order', () => {
    const sessions = buildProgram().commands.find((c) => c.name() === 'sessions');
    expect(sessions?.commands.map((c) => c.name())).toEqual([
      'answer',
      'attach',
      'close',
      'start',
      'pause',
      'resume',
      'stop',
      'cleanup',
      'link-pr',
      'list',
      'outcome',
      'register',
      'reset',
      'restart',
      'show',
    ]);
  });
});
