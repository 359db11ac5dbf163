import { claudeHarness } from './claude';
import { codexHarness } from './codex';
import { commandHarness } from './command';
import { cursorHarness } from './cursor';
import type { HarnessAdapter, HarnessName } from './types';

export type { HarnessAdapter, HarnessName, HarnessRunRequest, HarnessRunResult } from './types';

const ADAPTERS: Record<HarnessName, HarnessAdapter> = {
  claude: claudeHarness,
  cursor: cursorHarness,
  codex: codexHarness,
  command: commandHarness,
};

export const HARNESS_NAMES = Object.keys(ADAPTERS) as HarnessName[];

export function getHarness(name: string): HarnessAdapter {
  if (!Object.prototype.hasOwnProperty.call(ADAPTERS, name)) {
    throw new Error(`unknown harness '${name}' (known: ${HARNESS_NAMES.join(', ')})`);
  }
  return ADAPTERS[name as HarnessName];
}
