import type { TheLoopConfig } from '../config/schema';

/** What activities need from the world; injected so tests can run them against temporary directories. */
export interface ActivityDeps {
  config: TheLoopConfig;
  stateDir: string;
  hostId: string;
  /** Test-only fault points, e.g. 'after-result-json' crashes the worker exactly there. */
  faultPoint?: string;
}
