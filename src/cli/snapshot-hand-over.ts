/**
 * A snapshot cannot load a module from disk, so the start-up snapshot (snapshot-main.ts) holds, in place of the
 * modules that load the Temporal client, snapshot-stub.ts, which throws this. A run that needs one (`loopy status`
 * when no local worker answers, or with Temporal set by environment or temporal.toml) so stops before it prints
 * anything, and the launcher runs the command again from the script, which has them.
 */

/** The exit code by which the snapshot tells the launcher to run the script (also node's, for a refused blob). */
export const HAND_OVER_EXIT = 14;

export class HandOverToScript extends Error {
  constructor(readonly module: string) {
    super(`the start-up snapshot does not hold ${module}`);
    this.name = 'HandOverToScript';
  }
}
