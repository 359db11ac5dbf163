import { configSchema } from '../../../src/config/schema';
import { remoteAnswer } from '../../../src/config/permission-policy';

describe('permissions.remote', () => {
  const policy = {
    remote: {
      'Bash(npm test*)': 'allow',
      'Bash(git push*)': 'deny',
      'mcp__*': 'deny',
      Read: 'allow',
    },
  } as const;

  it('the first pattern that matches the tool, and what it asks, decides', () => {
    expect(remoteAnswer(policy, 'Bash', 'npm test -- --watch')).toEqual({
      answer: 'allow',
      pattern: 'Bash(npm test*)',
    });
    expect(remoteAnswer(policy, 'Bash', 'git push origin main')).toEqual({
      answer: 'deny',
      pattern: 'Bash(git push*)',
    });
    expect(remoteAnswer(policy, 'mcp__github__create_issue', '')).toEqual({
      answer: 'deny',
      pattern: 'mcp__*',
    });
    expect(remoteAnswer(policy, 'Read', '/etc/passwd')).toEqual({ answer: 'allow', pattern: 'Read' });
  });

  it('a prompt no pattern matches is asked; a tool pattern is the whole name, not a prefix', () => {
    expect(remoteAnswer(policy, 'Bash', 'rm -rf build')).toEqual({ answer: 'ask', pattern: null });
    expect(remoteAnswer(policy, 'ReadMany', 'x')).toEqual({ answer: 'ask', pattern: null });
    expect(remoteAnswer({ remote: {} }, 'Bash', 'npm test')).toEqual({ answer: 'ask', pattern: null });
  });

  it('regular-expression characters in a pattern are themselves', () => {
    const dotted = { remote: { 'Bash(make a.b)': 'allow' } } as const;
    expect(remoteAnswer(dotted, 'Bash', 'make a.b').answer).toBe('allow');
    expect(remoteAnswer(dotted, 'Bash', 'make aXb').answer).toBe('ask');
  });

  it('the config refuses a pattern that is not one, and a timeout that is not a duration; by default it asks, without limit', () => {
    const bad = configSchema.safeParse({ permissions: { remote: { 'Bash(npm': 'allow' } } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.message).toMatch(
      /'Bash\(npm' is not a tool pattern: write Tool or Tool\(what it asks\)/,
    );
    expect(configSchema.safeParse({ permissions: { timeout: 'soon' } }).success).toBe(false);
    expect(configSchema.safeParse({ permissions: { remote: { Bash: 'maybe' } } }).success).toBe(false);
    expect(configSchema.parse({}).permissions).toEqual({ remote: {}, onTimeout: 'deny' });
  });
});
