/** Comments the-loop posts carry this marker; the ingress never acts on a comment that contains it. */
export const LOOP_MARKER = '<!-- the-loop:automated -->';

export function withMarker(body: string): string {
  return `${body}\n\n${LOOP_MARKER}`;
}

export function hasMarker(body: string): boolean {
  return body.includes(LOOP_MARKER);
}
