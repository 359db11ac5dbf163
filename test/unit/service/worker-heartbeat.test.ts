import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processStartedAt, type ProcessFacts } from '../../../src/service/process-facts';
import { servicePaths } from '../../../src/service/service-processes';
import { startHeartbeat } from '../../../src/service/worker-heartbeat';
import {
  STARTING_UNRESPONSIVE_AFTER_MS,
  UNRESPONSIVE_AFTER_MS,
  workerSilence,
} from '../../../src/service/worker-liveness';
import { waitFor } from '../../support/wait';
import { silentLog } from '../../../src/log/message-log';

/** A worker process as /proc would describe it: `state` S (sleeping, answers) or T (stopped). */
const facts = (pid: number, state = 'S', startTime = 0): ProcessFacts => ({
  pid,
  state,
  startTime,
  argv: [],
});

describe('the worker heartbeat and what it says about liveness', () => {
  it('a worker that beats answers; one whose last beat is older than its limit (longer while it starts) does not', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-beat-'));
    const file = servicePaths(stateDir).workerHeartbeat;
    const heartbeat = await startHeartbeat(stateDir, silentLog, 4242);
    try {
      // while it starts (bundling its workflows), a beat missed for longer is still a starting worker
      expect(readFileSync(file, 'utf8')).toBe('4242 starting\n');
      const late = new Date(Date.now() - UNRESPONSIVE_AFTER_MS - 5000);
      utimesSync(file, late, late);
      expect(await workerSilence(stateDir, facts(4242))).toBeNull();
      const gone = new Date(Date.now() - STARTING_UNRESPONSIVE_AFTER_MS - 5000);
      utimesSync(file, gone, gone);
      expect(await workerSilence(stateDir, facts(4242))).toEqual({
        since: expect.any(String),
        stopped: false,
      });

      heartbeat.ready();
      await waitFor(
        'a beat that no longer says starting',
        () => readFileSync(file, 'utf8') === '4242\n',
        30_000,
      );
      expect(await workerSilence(stateDir, facts(4242))).toBeNull();

      const last = new Date(Date.now() - UNRESPONSIVE_AFTER_MS - 5000);
      utimesSync(file, last, last);
      const silence = await workerSilence(stateDir, facts(4242, 'T'));
      expect(silence).toEqual({ since: expect.any(String), stopped: true });
      expect(Math.abs(Date.parse(silence!.since) - last.getTime())).toBeLessThan(1000);
    } finally {
      await heartbeat.stop();
    }
    expect(existsSync(file)).toBe(false);
  });

  it("a heartbeat naming another pid is not this worker's: its start time decides", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'the-loop-beat-'));
    writeFileSync(servicePaths(stateDir).workerHeartbeat, '1\n');
    // started at boot (tick 0), so long ago, and never beat
    const silence = await workerSilence(stateDir, facts(4242, 'S', 0));
    expect(silence).toEqual({
      since: new Date((await processStartedAt(facts(4242)))!).toISOString(),
      stopped: false,
    });
    // a worker that just started has not reached its first beat yet: it counts as answering
    const now = (await processStartedAt(facts(4242)))! + 1000;
    expect(await workerSilence(stateDir, facts(4242), now)).toBeNull();
  });
});
