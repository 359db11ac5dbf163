/**
 * The launcher: a small long-lived child of the worker that starts harness processes for it. Node forks to spawn,
 * and forking a worker that holds hundreds of megabytes costs milliseconds per turn; forking this process does not.
 * It imports nothing heavy, and exits when the worker goes away (the harnesses it started keep running, in their
 * own process groups, for the salvage path to find).
 */
import { launcherCgroups } from './cgroup';
import { sweepLeftoverRunCgroups } from './cgroup-sweep';
import type { LaunchRequest } from './launch-protocol';
import { spawnDetached } from './spawn-detached';

if (!process.send) {
  process.stderr.write('the-loop launcher: must be started by the worker with an IPC channel\n');
  process.exit(2);
}
process.on('message', (req: LaunchRequest) => spawnDetached(req, (event) => process.send?.(event)));
process.on('disconnect', () => process.exit(0));
// once listening: its awaits leave the launcher free to spawn between them
setImmediate(() => void sweepLeftoverRunCgroups(launcherCgroups()).catch(() => undefined));
