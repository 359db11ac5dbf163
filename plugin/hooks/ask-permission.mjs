// PermissionRequest: a permission prompt shows in the terminal. The worker hosting this session shows the session as
// waiting for a person, and holds this hook until someone answers from elsewhere (`the-loop sessions answer`, GitHub,
// Slack); the answer becomes this hook's decision. Answered in the terminal first, the worker says so and this hook
// decides nothing. Outside a hosted session (no THE_LOOP_HOOK_SOCKET) it does nothing. It always exits 0.
import { askPermission, log, readInput, reportFor, SOCKET_ENV } from './lib.mjs';

/**
 * "Allow, and don't ask again" for this session: the rules Claude Code itself suggests for the prompt (what its own
 * dialog's second option would add), kept to this session rather than written into anyone's settings; without
 * suggestions, the whole tool.
 */
function alwaysAllow(input) {
  const suggested = Array.isArray(input?.permission_suggestions) ? input.permission_suggestions : [];
  const rules = suggested.filter((s) => s?.type === 'addRules' && s.behavior === 'allow');
  if (rules.length > 0) return rules.map((s) => ({ ...s, destination: 'session' }));
  return [
    { type: 'addRules', rules: [{ toolName: input.tool_name }], behavior: 'allow', destination: 'session' },
  ];
}

async function main() {
  const input = await readInput();
  if (!process.env[SOCKET_ENV]) return;
  const report = reportFor(input);
  if (!report) return;
  const answer = await askPermission(report);
  if (!answer) return;
  const decision =
    answer.decision === 'allow'
      ? { behavior: 'allow', ...(answer.always ? { updatedPermissions: alwaysAllow(input) } : {}) }
      : { behavior: 'deny', message: answer.message || 'denied by a person through the-loop' };
  process.stdout.write(
    `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } })}\n`,
  );
}

main()
  .catch((error) => log(`ask-permission failed: ${error?.stack ?? error}`))
  .finally(() => process.exit(0));
