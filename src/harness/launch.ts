import { harnessEnv } from './env';
import { runProcess, type ProcessOutcome } from './process';
import type { HarnessName, HarnessRunRequest } from './types';

/**
 * Every adapter starts its harness the same way: own process group, the prompt on stdin, output kept, and the
 * allow-listed environment of harnessEnv.
 */
export function launchHarness(
  harness: HarnessName,
  req: HarnessRunRequest,
  command: string,
  args: string[],
): Promise<ProcessOutcome> {
  return runProcess({
    command,
    args,
    cwd: req.cwd,
    env: harnessEnv(harness, req),
    stdin: req.prompt,
    outputDir: req.outputDir,
    timeoutMs: req.timeoutMs,
    killGraceMs: req.killGraceMs ?? 5000,
    signal: req.signal,
    onLaunch: req.onLaunch,
    onSpawn: req.onSpawn,
  });
}
