/**
 * The names a hosted pane receives and the plugin's hooks read (plugin/hooks/lib.mjs keeps the same values; a
 * test holds them equal). The socket path is not secret; the token lives only in the 0600 file.
 */
export const HOOK_SOCKET_ENV = 'THE_LOOP_HOOK_SOCKET';
export const HOOK_TOKEN_FILE_ENV = 'THE_LOOP_HOOK_TOKEN_FILE';
export const HOOK_LOG_ENV = 'THE_LOOP_HOOK_LOG';
export const WORK_ITEM_ENV = 'THE_LOOP_WORK_ITEM';
/** The one route: POST a report with `Authorization: Bearer <token>`. */
export const REPORT_PATH = '/v1/report';
