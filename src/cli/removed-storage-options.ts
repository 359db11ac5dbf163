import { Option } from '@commander-js/extra-typings';
import { usageError } from '../errors';

const WHERE =
  'work-item records live where the config says (routing.registryDir, state.root), for the worker and the CLI alike; point at another config with --config or another state directory with THE_LOOP_STATE_DIR';

/**
 * `--registry-dir` and `--portable-dir`, removed: the storage is the host worker's setting, and a command that
 * read or wrote elsewhere would disagree with the worker. Hidden, so an old script learns where the setting went
 * (a usage error, exit 2) instead of only that the flag is unknown.
 */
export function removedStorageOption(flag: '--registry-dir' | '--portable-dir') {
  return new Option(`${flag} <dir>`).hideHelp().argParser((): never => {
    throw usageError(`${flag} was removed: ${WHERE}`);
  });
}
