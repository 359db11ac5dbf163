import { SIZE_LIMITS, truncateWithMarker } from '../session/limits';

// ESC-introduced sequences: CSI (ESC [ … final), OSC/DCS/SOS/PM/APC (ESC ] … BEL or ST), and two-byte escapes.
const ESCAPE_SEQUENCE =
  // eslint-disable-next-line no-control-regex
  /\u001b(?:\[[0-?]*[ -/]*[@-~]|[\]PX^_][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-Z\\-_])/g;
// Every other C0 control but tab and newline, DEL, and the C1 controls (8-bit CSI and friends).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text that is about to be pasted into an agent's TUI, made inert: terminal control sequences in a comment could
 * move the cursor, rewrite the screen or answer a dialog. Newline and tab stay; `\r\n` becomes `\n`. Long text is
 * cut with a marker at the documented cap.
 */
export function textForPane(text: string): string {
  const inert = text.replace(/\r\n?/g, '\n').replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
  return truncateWithMarker(inert, SIZE_LIMITS.deliveredEventBytes);
}
