/** What a permission prompt gets before anyone is asked: `ask` holds it for a person (the default). */
export type RemoteAnswer = 'ask' | 'allow' | 'deny';

export interface PermissionPolicy {
  /** Tool patterns, in the order written: `Bash`, `Bash(npm test*)`, `mcp__*`, `*`. The first match decides. */
  remote: Record<string, RemoteAnswer>;
}

/** `*` matches any run of characters; everything else is itself. */
function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 's');
}

/** A pattern's tool part and, in parentheses, what the call asks (its one-line summary: a command, a path). */
function parsePattern(pattern: string): { tool: RegExp; input: RegExp | null } {
  const match = /^([^()]+)\((.*)\)$/s.exec(pattern.trim());
  if (!match) return { tool: globToRegExp(pattern.trim()), input: null };
  return { tool: globToRegExp((match[1] ?? '').trim()), input: globToRegExp(match[2] ?? '') };
}

/** Why a pattern is refused in the config, or null. */
export function patternProblem(pattern: string): string | null {
  const trimmed = pattern.trim();
  if (trimmed === '') return 'a tool pattern is empty';
  if (/[()]/.test(trimmed) && !/^[^()]+\(.*\)$/s.test(trimmed)) {
    return `'${pattern}' is not a tool pattern: write Tool or Tool(what it asks), e.g. Bash(npm test*)`;
  }
  return null;
}

/** The policy's answer to a prompt for `tool` asking `summary`: the first matching pattern's, else `ask`. */
export function remoteAnswer(
  policy: PermissionPolicy,
  tool: string,
  summary: string,
): { answer: RemoteAnswer; pattern: string | null } {
  for (const [pattern, answer] of Object.entries(policy.remote)) {
    const { tool: toolMatch, input } = parsePattern(pattern);
    if (toolMatch.test(tool) && (input === null || input.test(summary))) return { answer, pattern };
  }
  return { answer: 'ask', pattern: null };
}
