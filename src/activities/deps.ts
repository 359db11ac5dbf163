import type { ThreadMirror } from '../channel/mirror';
import type { TheLoopConfig } from '../config/schema';
import type { GitHubClient } from '../github/api';
import type { HostedTurns } from '../work-item/host/pane-state';

/** What activities need from the world; injected so tests can run them against temporary directories. */
export interface ActivityDeps {
  config: TheLoopConfig;
  /** The config file the worker was started on: work-item activities re-read it (and env.file) at each spawn. */
  configPath?: string | null;
  stateDir: string;
  hostId: string;
  /**
   * Test-only fault points: 'after-result-json' crashes the worker exactly there; 'before-projection:<n>' as
   * iteration n's first attempt starts, before it writes the projection it carries; 'deliver:<point>:<event id>'
   * as a hosted delivery of that event reaches `before-paste` or `before-submit` (deliver-turn.ts).
   */
  faultPoint?: string;
  /** Work-item sessions: where process environments are read back (default /proc); tests point it elsewhere. */
  procRoot?: string;
  /** Every GitHub call goes through this client; absent when no credentials are configured. */
  github?: GitHubClient;
  /** Hosted panes' hooks and turns (the worker starts them); absent: delivery pastes blind, as for cursor. */
  turns?: HostedTurns;
  /** The work item's Slack thread (the worker builds it from the config's `slack`); absent: no channel. */
  mirror?: ThreadMirror | null;
}
