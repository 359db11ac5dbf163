import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { createAdoptActivities, SESSION_NOT_ON_HOST } from '../../../src/activities/adopt-session';
import { configSchema } from '../../../src/config/schema';
import { readJsonFile } from '../../../src/session/json-file';
import { sessionFileSchema } from '../../../src/session/schemas';
import { createSessionDirectory } from '../../../src/session/session-dir';
import { goalHash } from '../../../src/session/session-id';

const { adoptSession } = createAdoptActivities({
  config: configSchema.parse({}),
  stateDir: '/nonexistent',
  hostId: 'hostb',
});

function sessionDir(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'adopt-'));
  const dir = path.join(root, 's1');
  createSessionDirectory({
    sessionDir: dir,
    goal: 'g',
    session: {
      session_id: 's1',
      goal_hash: goalHash('g'),
      created_at: '2026-12-01T00:00:00.000Z',
      cwd: root,
      workflow_id: 's1',
      task_queue: 'q',
      host_queue: 'q.host.hosta',
      harness: 'claude',
      parent_session_id: null,
      routines_file: null,
    },
    createdBy: 'coordinator',
  });
  return dir;
}

async function refusal(run: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  const failure = error as ApplicationFailure;
  expect(failure.type).toBe(SESSION_NOT_ON_HOST);
  expect(failure.nonRetryable).toBe(true);
  return failure;
}

describe('adoptSession: a host takes a moving session over only when it reaches its directory', () => {
  it('takes it over: session.json names the new host queue', async () => {
    const dir = sessionDir();
    await expect(
      adoptSession({ sessionId: 's1', sessionDir: dir, hostQueue: 'q.host.hostb' }),
    ).resolves.toEqual({
      hostId: 'hostb',
    });
    expect(readJsonFile(path.join(dir, 'session.json'), sessionFileSchema).host_queue).toBe('q.host.hostb');
  });

  it('refuses a directory it cannot reach, and creates nothing', async () => {
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'adopt-')), 'gone');
    const failure = await refusal(
      adoptSession({ sessionId: 's1', sessionDir: dir, hostQueue: 'q.host.hostb' }),
    );
    expect(failure.message).toMatch(
      /^host hostb cannot take session s1: .*session\.json is not reachable there$/,
    );
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("refuses another session's directory and leaves it as it was", async () => {
    const dir = sessionDir();
    const failure = await refusal(
      adoptSession({ sessionId: 's2', sessionDir: dir, hostQueue: 'q.host.hostb' }),
    );
    expect(failure.message).toMatch(/belongs to session s1$/);
    expect(readJsonFile(path.join(dir, 'session.json'), sessionFileSchema).host_queue).toBe('q.host.hosta');
  });
});
