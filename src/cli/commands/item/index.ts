import { Command } from '@commander-js/extra-typings';
import { removedStorageOption } from '../../removed-storage-options';
import type { GlobalOptions } from '../../../service/context';

export function registerItemCommands(program: Command<[], GlobalOptions>): void {
  const item = program.command('item').description('work items as GitHub has them');
  item
    .command('show')
    .description(
      'print a work item for an agent: title, body, labels, the whole comment thread, and its pull requests with their reviews and checks',
    )
    .argument('<ref>', 'work-item ref, e.g. github:OWNER/REPO#15')
    .option('--format <format>', 'markdown or json', 'markdown')
    .addOption(removedStorageOption('--registry-dir'))
    .action(async (refText, options) => {
      // Loaded by the action only: registering the command (and so --help) must stay cheap.
      const { showItem } = await import('./show.js');
      await showItem(program.opts(), refText, options);
    });
}
