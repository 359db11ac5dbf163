import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authFailureAfter, authFailureInDebugLog } from '../../../src/work-item/claude-debug-log';

// as claude 2.1.197 writes them with --debug-file and CLAUDE_CODE_DEBUG_LOG_LEVEL=error (recorded against a 401)
const REFUSED =
  '2026-12-03T15:47:33.346Z [ERROR] API error (attempt 1/11): 401 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}\n';
const OTHER =
  '2026-12-03T15:47:25.840Z [ERROR] unmount terminal cleanup writeSync failed: Error: EIO: i/o error, write\n';

describe("claude's debug log", () => {
  it('names the status and error type of a call refused for its credential', () => {
    expect(authFailureInDebugLog(OTHER + REFUSED)).toEqual({ status: 401, error: 'authentication_error' });
    expect(authFailureInDebugLog('[ERROR] API error (attempt 2/11): 403 forbidden\n')).toEqual({
      status: 403,
      error: 'authentication_failed',
    });
  });

  it('ignores other errors, and statuses a retry may mend', () => {
    expect(authFailureInDebugLog(OTHER)).toBeNull();
    expect(authFailureInDebugLog('[ERROR] API error (attempt 1/11): 529 529 {"type":"error"}\n')).toBeNull();
  });

  it('reads only what the running turn logged: a refusal before its start was answered', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tl-debug-')), 'claude-debug.log');
    expect(await authFailureAfter(file, 0)).toBeNull();
    writeFileSync(file, OTHER + REFUSED);
    const offset = Buffer.byteLength(OTHER + REFUSED);
    expect(await authFailureAfter(file, 0)).toMatchObject({ status: 401 });
    expect(await authFailureAfter(file, offset)).toBeNull();
    appendFileSync(file, REFUSED.replace('401 401', '403 403'));
    expect(await authFailureAfter(file, offset)).toMatchObject({ status: 403 });
  });
});
