import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { workItemWorkflowId } from '../../../src/workflows/work-item/ids';
import { readPortable } from '../../../src/work-item/portable';
import { parseWorkItemRef, refSlug } from '../../../src/work-item/ref';
import { claudeSessionId } from '../../support/ids';
import { openClaudeConversation, setupWorkItemEnv, type WorkItemTestEnv } from './helpers';
import { waitFor } from '../../support/wait';

const REF = 'github:octo/repo#71';
const slug = refSlug(parseWorkItemRef(REF));

// CLI processes one after another, each loading the Temporal client; every wait in here is for a condition
jest.setTimeout(300_000);

/**
 * Where work-item records live is the host worker's storage setting: a worker configured with routing.registryDir
 * hosts a session the CLI started with no directory flag, and every host operation writes there.
 */
describe('work-item storage is the worker setting (routing.registryDir), not workflow input', () => {
  let env: WorkItemTestEnv;
  let registryDir: string;

  beforeAll(async () => {
    // outside the state root: nothing but the setting can lead the worker there
    registryDir = mkdtempSync(join(tmpdir(), 'the-loop-registry-'));
    env = await setupWorkItemEnv({ yaml: { routing: { registryDir } } });
  });

  afterAll(async () => {
    await env?.dispose();
  });

  it('register, pause and close with no flag: the records land in the configured registry', async () => {
    // a conversation the real claude holds in that directory: register finds it and warns about nothing
    await openClaudeConversation(env, env.dir, claudeSessionId(71), 'a conversation to register');
    const registered = await env.cli([
      'sessions',
      'register',
      '--work-item',
      REF,
      '--harness',
      'claude',
      '--harness-session-id',
      claudeSessionId(71),
      '--cwd',
      env.dir,
    ]);
    expect(registered.stderr).toBe('');
    expect(registered.code).toBe(0);
    // the worker's open activity wrote the record where its config says, and nowhere else
    expect(env.dirs.registryDir).toBe(registryDir);
    expect(env.record(REF)?.work_item).toBe(REF);
    expect(existsSync(join(registryDir, `${slug}.json`))).toBe(true);
    expect(existsSync(join(env.dirs.stateRoot, 'local'))).toBe(false);
    expect(readPortable(env.dirs, slug)?.work_item).toBe(REF);

    // the run's input names no directory: the worker resolved them itself
    const history = await env.client.workflow.getHandle(workItemWorkflowId(REF)).fetchHistory();
    const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    const input = defaultPayloadConverter.fromPayload<Record<string, unknown>>(payload ?? {});
    expect(input.workItem).toBe(REF);
    expect(Object.keys(input)).not.toContain('registryDir');
    expect(Object.keys(input)).not.toContain('portableDir');

    // an update that is one host operation reaches the worker's activity and answers for the session
    const restart = await env.cli(['sessions', 'restart', '--work-item', REF, '--dry-run']);
    expect(restart.code).toBe(0);
    expect(restart.stdout).toContain(`${REF} skipped — not running`);

    // a control is recorded there by the worker, and the CLI lists it from the same setting
    const paused = await env.cli(['sessions', 'pause', '--work-item', REF, '--no-comment']);
    expect(paused.code).toBe(0);
    await waitFor(
      'the pause in the record',
      () => env.record(REF)?.last_control?.command === 'pause',
      180_000,
    );
    const listed = await env.cli(['sessions', 'list', '--format', 'json']);
    expect(listed.code).toBe(0);
    const records = JSON.parse(listed.stdout) as { work_item: string; status: string }[];
    expect(records.map((r) => [r.work_item, r.status])).toEqual([[REF, 'paused']]);

    const closed = await env.cli(['sessions', 'close', '--work-item', REF]);
    expect(closed.code).toBe(0);
    await waitFor('the closed record', () => env.record(REF)?.status === 'closed', 180_000);
    expect(existsSync(join(env.dirs.stateRoot, 'local'))).toBe(false);
  });

  it('the removed --registry-dir and --portable-dir fail with one line and exit 2, changing nothing', async () => {
    for (const flag of ['--registry-dir', '--portable-dir']) {
      const r = await env.cli(['sessions', 'list', flag, join(env.dir, 'elsewhere')]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        new RegExp(`^the-loop: ${flag} was removed: [^\\n]*routing\\.registryDir[^\\n]*\\n$`),
      );
    }
    expect(existsSync(join(env.dir, 'elsewhere'))).toBe(false);
  });
});
