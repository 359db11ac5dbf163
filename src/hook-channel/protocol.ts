/**
 * The names a hosted pane receives and the plugin's hooks read (plugin/hooks/lib.mjs keeps the same values; a
 * test holds them equal). The socket path is not secret; the token lives only in the 0600 file.
 */
export const HOOK_SOCKET_ENV = 'THE_LOOP_HOOK_SOCKET';
export const HOOK_TOKEN_FILE_ENV = 'THE_LOOP_HOOK_TOKEN_FILE';
export const HOOK_LOG_ENV = 'THE_LOOP_HOOK_LOG';
export const WORK_ITEM_ENV = 'THE_LOOP_WORK_ITEM';
/** A report its worker did not take (the worker was away past the retry window) is appended here, one JSON a line. */
export const HOOK_SPOOL_ENV = 'THE_LOOP_HOOK_SPOOL';
/** The one route: POST a report with `Authorization: Bearer <token>`. */
export const REPORT_PATH = '/v1/report';
