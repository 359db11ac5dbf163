import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildSessionInput } from '../../../src/cli/session-input';
import { startGoalSession } from '../../../src/cli/start-session';
import { readJsonIfExists } from '../../../src/session/json-file';
import { childrenFileSchema, type ChildRecord } from '../../../src/session/schemas';
import {
  harnessStarted,
  liveGroup,
  recoveryConfig,
  recoveryConfigObject,
  sessionState,
} from '../../support/recovery';
import { bySession, scriptGoalLoops } from '../../support/scripted-agent';
import { testServer, uniqueQueue } from '../../support/temporal';
import { spawnWorkerProcess } from '../../support/worker-processes';
import { workerProcessSuite } from '../../support/worker-process-suite';
import { waitFor } from '../../support/wait';

const HEARTBEAT_TIMEOUT_MS = 5000;
const HOST = 'childcrash';

const children = (dir: string): ChildRecord[] =>
  readJsonIfExists(join(dir, 'children.json'), childrenFileSchema)?.children ?? [];
const childDir = (parentDir: string, rec: ChildRecord | undefined) => {
  if (!rec?.session_id) throw new Error(`no child session in ${JSON.stringify(rec)}`);
  return join(parentDir, 'children', rec.session_id);
};

/**
 * The worker processes run the REAL claude against the mock Anthropic API in this process (they inherit its
 * environment, with a HOME that allows Bash); the model's turns are scripted per session by goal and iteration.
 */
describe('child sessions survive kill -9 of the worker', () => {
  const suite = workerProcessSuite({
    allowedTools: ['Bash'],
    freshBuild: ['src/activities/child-requests.ts', 'src/activities/index.ts'],
  });

  it('kill -9 while a grandchild iteration runs: the tree finishes and every ledger adds up', async () => {
    const toolPidFile = join(mkdtempSync(join(tmpdir(), 'loopy-tool-')), 'tool.pid');
    scriptGoalLoops(
      suite.mock,
      bySession([
        {
          // A two-minute shell command through the Bash tool: its shell is in a process group of its own.
          goalContains: 'CRASH leaf',
          turns: [
            {
              bash: `echo $$ > ${toolPidFile}.tmp && mv ${toolPidFile}.tmp ${toolPidFile} && sleep 120`,
              costUsd: 1,
            },
          ],
          default: { costUsd: 0.25 },
        },
        {
          goalContains: 'CRASH mid',
          turns: [
            {
              costUsd: 0.125,
              childRequests: { 'leaf.json': { goal: 'CRASH leaf work', max_iterations: 2 } },
            },
          ],
          default: { costUsd: 0.125 },
        },
        {
          goalContains: 'CRASH root',
          turns: [
            {
              costUsd: 0.0625,
              childRequests: { 'mid.json': { goal: 'CRASH mid work', max_iterations: 2 } },
            },
          ],
          default: { costUsd: 0.0625 },
        },
      ]),
    );
    const taskQueue = uniqueQueue('childcrash');
    const options = { taskQueue, hostId: HOST, heartbeatTimeout: `${HEARTBEAT_TIMEOUT_MS}ms` };
    const worker = () => {
      const w = spawnWorkerProcess({
        address: testServer().address,
        taskQueue,
        hostId: HOST,
        bundlePath: testServer().bundlePath,
        config: recoveryConfigObject(options),
      });
      suite.workers.push(w);
      return w;
    };
    const input = buildSessionInput(recoveryConfig(options), {
      goal: 'CRASH root',
      cwd: mkdtempSync(join(tmpdir(), 'loopy-childcrash-')),
      harness: 'claude',
      maxIterations: 2,
    });

    const first = worker();
    await first.ready;
    const handle = await startGoalSession(suite.client, input);
    const tool = Number(
      await waitFor(
        'the tool process of the grandchild session turn',
        () => existsSync(toolPidFile) && readFileSync(toolPidFile, 'utf8'),
        120_000,
      ),
    );
    const mid = childDir(input.sessionDir, children(input.sessionDir)[0]);
    const leaf = childDir(mid, children(mid)[0]);
    const leafRun = await harnessStarted(leaf, 1, 'planner');
    suite.groups.push(leafRun.group, tool);

    first.kill('SIGKILL');
    await first.exited;
    // orphaned by the crash: the supervisor and the harness in its group, the tool in a group of its own
    expect(liveGroup(leafRun.group).sort()).toEqual([leafRun.group, leafRun.harness].sort());
    expect(liveGroup(tool).length).toBeGreaterThan(0);
    const second = worker();
    await second.ready;

    const result = await handle.result();
    expect(result.stop.kind).toBe('max_iterations');
    expect(liveGroup(leafRun.group)).toEqual([]);
    expect(liveGroup(tool)).toEqual([]);

    const [midRec] = children(input.sessionDir);
    const [leafRec] = children(mid);
    expect([midRec?.status, leafRec?.status]).toEqual(['complete', 'complete']);
    expect(children(input.sessionDir)).toHaveLength(1);
    expect(children(mid)).toHaveLength(1);

    const leafState = sessionState(leaf);
    expect(leafState?.history.map((h) => h.iteration)).toEqual([1, 2]);
    expect(leafState?.history[0]?.success).toBe(false);
    expect(leafState?.history[0]?.error).toMatch(/^abandoned/);
    expect(leafState?.history[1]?.usage?.cost_usd).toBeCloseTo(0.25);
    // The interrupted turn counts what the real CLI reported when it was reaped (SIGTERMed while its Bash tool ran,
    // it ends the tool and may still finish the turn: $1), or nothing: the ledgers hold each recorded cost once.
    const costOf = (state: ReturnType<typeof sessionState>) =>
      (state?.history ?? []).reduce((sum, h) => sum + (h.usage?.cost_usd ?? 0), 0);
    const leafTotal = leafState?.usage.total.cost_usd ?? NaN;
    expect([0.25, 1.25].some((v) => Math.abs(v - leafTotal) < 1e-9)).toBe(true);
    expect(leafTotal).toBeCloseTo(costOf(leafState));
    expect(leafRec?.usage?.cost_usd).toBeCloseTo(leafTotal);
    const midState = sessionState(mid);
    expect(midState?.usage.own.cost_usd).toBeCloseTo(0.25);
    expect(midState?.usage.total.cost_usd).toBeCloseTo(0.25 + leafTotal);
    expect(midRec?.usage?.cost_usd).toBeCloseTo(0.25 + leafTotal);
    const rootState = sessionState(input.sessionDir);
    expect(rootState?.usage.own.cost_usd).toBeCloseTo(0.125);
    expect(rootState?.usage.total.cost_usd).toBeCloseTo(0.375 + leafTotal);
    expect(result.usage.cost_usd).toBeCloseTo(0.375 + leafTotal);
    expect(rootState?.active_child_session_id).toBeNull();
    expect(midState?.active_child_session_id).toBeNull();
  });
});
