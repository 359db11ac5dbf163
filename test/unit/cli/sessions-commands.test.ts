import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sessionsVerbs } from '../../../src/cli/commands/sessions/index';
import { sessionsCommand } from '../../../src/cli/commands/sessions/shared';
import { buildProgram } from '../../../src/cli/main';
import { rootProgram } from '../../../src/cli/program';

const folder = join(__dirname, '../../../src/cli/commands/sessions');
/** Every file of the folder but the index and what the verbs share: each is a verb. */
const verbFiles = readdirSync(folder)
  .filter((file) => file.endsWith('.ts') && file !== 'index.ts' && file !== 'shared.ts')
  .sort();

/** The commands one verb module declares, on a `sessions` of its own. */
function declaredBy(verb: (typeof sessionsVerbs)[number]): string[] {
  const sessions = sessionsCommand(rootProgram('the-loop'));
  verb.declareCommand(sessions);
  return sessions.commands.map((command) => command.name());
}

describe('the sessions verbs are listed by name in src/cli/commands/sessions/index.ts', () => {
  /** The file each listed module is, in list order. */
  let listedFiles: string[] = [];
  beforeAll(async () => {
    const modules: unknown[] = await Promise.all(verbFiles.map((file) => import(join(folder, file))));
    listedFiles = sessionsVerbs.map(
      (verb) => verbFiles[modules.indexOf(verb)] ?? '(not a file of the folder)',
    );
  });

  it('lists every verb file of the folder, once each, in file-name order', () => {
    expect(listedFiles).toEqual(verbFiles);
  });

  it('each listed module declares at least one command', () => {
    const declaringNone = sessionsVerbs.flatMap((verb, i) =>
      declaredBy(verb).length === 0 ? [listedFiles[i]] : [],
    );
    expect(declaringNone).toEqual([]);
  });

  it('`sessions` has exactly the commands the listed modules declare, in list order', () => {
    const sessions = buildProgram().commands.find((command) => command.name() === 'sessions');
    expect(sessions?.commands.map((command) => command.name())).toEqual(sessionsVerbs.flatMap(declaredBy));
  });
});
