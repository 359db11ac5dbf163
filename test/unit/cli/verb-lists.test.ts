import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { boardVerbs } from '../../../src/cli/commands/board/index';
import { budgetVerbs } from '../../../src/cli/commands/budget/index';
import { evalVerbs } from '../../../src/cli/commands/eval/index';
import { inboxVerbs } from '../../../src/cli/commands/inbox/index';
import { itemVerbs } from '../../../src/cli/commands/item/index';
import { loopyVerbs } from '../../../src/cli/commands/loopy/index';
import { prVerbs } from '../../../src/cli/commands/pr/index';
import { serviceVerbs } from '../../../src/cli/commands/service/index';
import { webhookVerbs } from '../../../src/cli/commands/webhook/index';
import { rootProgram } from '../../../src/cli/program';

type VerbModule = { declareCommand(parent: ReturnType<typeof rootProgram>): void };

/** Each noun folder, its list of verb modules, and its files that are no verb (what the verbs share). */
const nouns: { folder: string; verbs: readonly VerbModule[]; helpers: string[] }[] = [
  { folder: 'board', verbs: boardVerbs, helpers: [] },
  { folder: 'budget', verbs: budgetVerbs, helpers: [] },
  { folder: 'eval', verbs: evalVerbs, helpers: [] },
  { folder: 'inbox', verbs: inboxVerbs, helpers: [] },
  { folder: 'item', verbs: itemVerbs, helpers: [] },
  {
    folder: 'loopy',
    verbs: loopyVerbs,
    // status.ts is the run of `status` for a goal session, which service/status.ts declares; worker-status.ts asks
    // the local worker for it
    helpers: [
      'host-pollers.ts',
      'live-state.ts',
      'session-files.ts',
      'session-workflow.ts',
      'status.ts',
      'worker-status.ts',
    ],
  },
  { folder: 'pr', verbs: prVerbs, helpers: [] },
  // status-command.ts declares `status` for status.ts and for the start-up snapshot, each with its own run
  { folder: 'service', verbs: serviceVerbs, helpers: ['status-command.ts', 'status-lines.ts'] },
  { folder: 'webhook', verbs: webhookVerbs, helpers: [] },
];

/** The commands one verb module declares, on a parent of its own. */
function declaredBy(verb: VerbModule): string[] {
  const parent = rootProgram('the-loop');
  verb.declareCommand(parent);
  return parent.commands.map((command) => command.name());
}

describe.each(nouns)(
  'src/cli/commands/$folder/index.ts lists its verbs by name',
  ({ folder, verbs, helpers }) => {
    const dir = join(__dirname, '../../../src/cli/commands', folder);
    const verbFiles = readdirSync(dir)
      .filter((file) => file.endsWith('.ts') && file !== 'index.ts' && !helpers.includes(file))
      .sort();

    it('lists every verb file of the folder, once each', async () => {
      const modules: unknown[] = await Promise.all(verbFiles.map((file) => import(join(dir, file))));
      const listed = verbs.map((verb) => verbFiles[modules.indexOf(verb)] ?? '(not a file of the folder)');
      expect([...listed].sort()).toEqual(verbFiles);
    });

    it('each listed module declares at least one command', () => {
      expect(verbs.filter((verb) => declaredBy(verb).length === 0)).toEqual([]);
    });
  },
);
