import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configSchema } from '../config/schema';
import { workItemDirs, type WorkItemDirs } from './paths';
import { formatRef, refSlug } from './ref';
import { writeRecord } from './registry';

/** A the-loop.yaml under `dir` whose registry holds `sessions` records (a mix of statuses, some with PRs). */
export function seedRegistry(dir: string, sessions: number): { configFile: string; dirs: WorkItemDirs } {
  const root = join(dir, 'root');
  const configFile = join(dir, 'the-loop.yaml');
  writeFileSync(configFile, `state:\n  root: ${root}\n`);
  const dirs = workItemDirs(configSchema.parse({ state: { root } }), dir);
  const now = new Date().toISOString();
  for (let n = 1; n <= sessions; n++) {
    const ref = {
      provider: 'github' as const,
      host: 'github.com',
      owner: 'octo',
      repo: `repo${n % 7}`,
      number: n,
    };
    const workItem = formatRef(ref);
    const slug = refSlug(ref);
    writeRecord(dirs, {
      schema_version: 1,
      work_item: workItem,
      slug,
      status: n % 10 === 0 ? 'closed' : n % 7 === 0 ? 'paused' : 'active',
      harness: 'claude',
      harness_session_id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
      cwd: `/srv/ws/${slug}`,
      registered_at: now,
      updated_at: now,
      workflow_id: `work-item/${workItem}`,
      run_id: null,
      host_queue: 'the-loop.host.bench',
      session_dir: join(root, 'sessions', slug),
      tmux: { socket: 'the-loop', session: `loop-${slug}`, created_at: now, command: ['claude'] },
      checkout: null,
      pull_requests: n % 3 === 0 ? [`github:octo/repo${n % 7}#${n + 100000}`] : [],
      last_control: { command: 'start', at: now },
      closed_at: null,
      closed_reason: null,
    });
  }
  return { configFile, dirs };
}
