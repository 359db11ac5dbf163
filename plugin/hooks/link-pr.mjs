// PostToolUse: after a `git push`, a `gh pr create` or an MCP server's create_pull_request, ask the-loop to
// record the open pull requests of this checkout's branch (`the-loop sessions link-pr --discover`). It reads the
// tool's input only, never its output, and link-pr is idempotent, so a repeated run is harmless. The work item
// comes from THE_LOOP_WORK_ITEM, else from the registry's active session whose directory holds the cwd.
// Whatever happens, it exits 0 and prints nothing.
import { execFile } from 'node:child_process';
import { resolve, sep } from 'node:path';
import { log, opensPullRequest, readInput, WORK_ITEM_ENV } from './lib.mjs';

const LINK_TIMEOUT_MS = 45_000;
const THE_LOOP = 'the-loop';

function run(args, cwd) {
  return new Promise((done) => {
    execFile(
      THE_LOOP,
      args,
      { cwd, timeout: LINK_TIMEOUT_MS, encoding: 'utf8', maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => done({ error, stdout, stderr }),
    );
  });
}

const inside = (dir, cwd) => cwd === dir || cwd.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/** THE_LOOP_WORK_ITEM, else the active session registered for the directory that holds `cwd`. */
async function workItemFor(cwd) {
  const fromEnv = process.env[WORK_ITEM_ENV];
  if (fromEnv) return fromEnv;
  const listed = await run(['sessions', 'list', '--status', 'active', '--format', 'json'], cwd);
  if (listed.error) {
    log(`link-pr: cannot list the sessions: ${(listed.stderr || listed.error.message).trim()}`);
    return null;
  }
  let records;
  try {
    records = JSON.parse(listed.stdout || '[]');
  } catch {
    return null;
  }
  let best = null;
  for (const record of Array.isArray(records) ? records : []) {
    for (const dir of [record.cwd, record.checkout?.path]) {
      if (typeof dir !== 'string' || !inside(resolve(dir), cwd)) continue;
      if (!best || dir.length > best.dir.length) best = { dir, workItem: record.work_item };
    }
  }
  return best?.workItem ?? null;
}

async function main() {
  const input = await readInput();
  if (!opensPullRequest(input)) return;
  const cwd = resolve(typeof input.cwd === 'string' ? input.cwd : process.cwd());
  const workItem = await workItemFor(cwd);
  if (!workItem) {
    log(`link-pr: no work item for ${cwd} (no ${WORK_ITEM_ENV}, no active session registered there)`);
    return;
  }
  const result = await run(['sessions', 'link-pr', '--work-item', workItem, '--discover'], cwd);
  const output = `${result.stdout}${result.stderr}`.trim().replace(/\n/g, ' | ');
  if (result.error)
    log(`link-pr ${workItem}: failed (${result.error.code ?? result.error.signal}): ${output}`);
  else log(`link-pr ${workItem}: ${output}`);
}

main()
  .catch((error) => log(`link-pr failed: ${error?.stack ?? error}`))
  .finally(() => process.exit(0));
