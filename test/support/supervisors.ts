import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import type { SupervisorBuild } from '../../src/harness/build-supervisor';
import { supervisorCommand } from '../../src/harness/supervisor';

const BUILD_SUPERVISOR = resolve(__dirname, '..', '..', 'dist', 'src', 'harness', 'build-supervisor.js');

/** Both supervisors keep the same promises: the compiled one (supervisor.c), and the shell one (supervisor.ts). */
export const SUPERVISORS = ['compiled', 'shell'] as const;
export type SupervisorKind = (typeof SUPERVISORS)[number];

/**
 * The compiled supervisor, built as a worker builds it when this machine has none yet; without a C compiler, the test
 * fails saying so. Built by dist/ in a process of its own: jest's global setup cannot load execa.
 */
export function compiledSupervisorPath(): string {
  const run = spawnSync(
    process.execPath,
    [
      '-e',
      `require(${JSON.stringify(BUILD_SUPERVISOR)}).buildSupervisor().then((b) => console.log(JSON.stringify(b)))`,
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (run.status !== 0) throw new Error(`could not run ${BUILD_SUPERVISOR} (npm run build first)`);
  const built = JSON.parse(run.stdout) as SupervisorBuild;
  if (built.kind !== 'compiled') {
    throw new Error(`the compiled supervisor is not built: ${built.reason} (apt-get install gcc)`);
  }
  return built.path;
}

/** The supervisor of `kind` as the launcher starts it, with a cgroup directory (or '') and no namespace. */
export function supervisorOf(
  kind: SupervisorKind,
  compiled: string,
  exitFile: string,
  cgroupDir: string,
  ...command: string[]
): [string, string[]] {
  return supervisorCommand(kind === 'compiled' ? compiled : null, {
    exitFile,
    cgroup: cgroupDir || null,
    namespace: null,
    command,
  });
}
