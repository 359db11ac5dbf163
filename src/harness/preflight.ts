import { LoadScaledDeadline } from '../process/load-scaled-deadline';
import type { TheLoopConfig } from '../config/schema';
import type { Routine } from '../session/routine-schedule';
import { CLAUDE_BIN_ENV } from './claude';
import { CODEX_BIN_ENV } from './codex';
import { CURSOR_BIN_ENV } from './cursor';
import { findExecutable } from './find-executable';

type AgentHarness = 'claude' | 'cursor' | 'codex';

const AGENTS: Record<AgentHarness, { bin: string; envVar: string; install: string }> = {
  claude: {
    bin: 'claude',
    envVar: CLAUDE_BIN_ENV,
    install: 'npm install -g @anthropic-ai/claude-code, then run `claude` once to log in',
  },
  cursor: {
    bin: 'cursor-agent',
    envVar: CURSOR_BIN_ENV,
    install: 'curl https://cursor.com/install -fsS | bash',
  },
  codex: { bin: 'codex', envVar: CODEX_BIN_ENV, install: 'npm install -g @openai/codex' },
};

/**
 * Long enough for a cold start of the claude CLI, short enough that a hung one is refused; stretched on a busy machine
 * (at a load of 29 on 2 cores, claude's --version took longer than 10 s).
 */
const VERSION_ON_AN_IDLE_MACHINE_MS = 10_000;

/** The harnesses a session will run: its own, and each routine's with that routine's executable. */
export function sessionHarnessProblem(
  harness: HarnessUse['harness'],
  routines: readonly Routine[] | undefined,
  config: TheLoopConfig,
): Promise<string | null> {
  const uses: HarnessUse[] = routines
    ? routines.map((r) => ({ harness: r.harness ?? harness, command: r.harness_options.command }))
    : [{ harness }];
  return harnessProblem(uses, {
    claude: config.harness.claude.command,
    cursor: config.harness.cursor.command,
    codex: config.harness.codex.command,
  });
}

export interface HarnessUse {
  harness: 'claude' | 'cursor' | 'codex' | 'command';
  /** A routine's `harness_options.command`, which wins over the config and the environment. */
  command?: string | null;
}

/**
 * Why the session's harnesses cannot run on this machine, as one line with the fix; null when they can.
 * Resolves each executable the way the iteration activity does (routine option, config, THE_LOOP_*_BIN, name
 * on PATH), so that `loopy run` refuses before it creates a session that would fail every turn.
 */
export async function harnessProblem(
  uses: readonly HarnessUse[],
  configured: Partial<Record<AgentHarness, string | null>>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | null> {
  const checked = new Set<string>();
  for (const use of uses) {
    // The command harness runs a shell line; /bin/sh is always there and the line is the user's own.
    if (use.harness === 'command') continue;
    const agent = AGENTS[use.harness];
    const command = use.command ?? configured[use.harness] ?? env[agent.envVar] ?? agent.bin;
    if (checked.has(`${use.harness}:${command}`)) continue;
    checked.add(`${use.harness}:${command}`);
    const executable = findExecutable(command, env);
    if (executable === null)
      return `the ${use.harness} harness needs \`${command}\`, which is not ${command.includes('/') ? 'an executable file' : 'on PATH'} — install it (${agent.install}), point harness.${use.harness}.command or ${agent.envVar} at it, or run with --harness command --harness-command 'CMD …'`;
    if (use.harness === 'claude') {
      const answer = await versionProblem(executable, env);
      if (answer)
        return `the claude harness's \`${executable} --version\` ${answer} — reinstall it (${agent.install}), or run with --harness command --harness-command 'CMD …'`;
    }
  }
  return null;
}

async function versionProblem(executable: string, env: NodeJS.ProcessEnv): Promise<string | null> {
  const { execa } = await import('execa');
  const deadline = new LoadScaledDeadline(VERSION_ON_AN_IDLE_MACHINE_MS);
  const hung = new AbortController();
  const watch = setInterval(() => deadline.expired() && hung.abort(), 250);
  const result = await execa(executable, ['--version'], {
    env,
    stdin: 'ignore',
    cancelSignal: hung.signal,
    reject: false,
  }).finally(() => clearInterval(watch));
  if (result.isCanceled) return `did not answer within ${deadline.describe()}`;
  if (result.failed) {
    const detail =
      String(result.stderr ?? '')
        .trim()
        .split('\n')[0] || result.shortMessage;
    return `failed (${detail})`;
  }
  return null;
}
