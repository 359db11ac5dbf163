// SessionStart, UserPromptSubmit, Stop and Notification: tell the worker hosting this session that the pane is
// ready, that a turn began or ended, or that a dialog is waiting for a human. Outside a hosted session (no
// THE_LOOP_HOOK_SOCKET) it does nothing. Whatever happens, it exits 0 and prints nothing.
import { log, readInput, reportFor, sendReport, SOCKET_ENV } from './lib.mjs';

async function main() {
  const input = await readInput();
  if (!process.env[SOCKET_ENV]) return;
  const report = reportFor(input);
  if (!report) {
    log(`ignored hook event ${String(input.hook_event_name)}`);
    return;
  }
  const result = await sendReport(report);
  if (result.error) log(`${report.event}: not reported: ${result.error}`);
  else if (result.spooled) log(`${report.event}: the worker is away; spooled for its return`);
  else if (result.status !== undefined && (result.status < 200 || result.status >= 300))
    log(`${report.event}: the worker answered ${result.status} ${result.body ?? ''}`.trim());
}

main()
  .catch((error) => log(`report-turn failed: ${error?.stack ?? error}`))
  .finally(() => process.exit(0));
