import { capturedLogger as capture } from '../../support/captured-logger';

describe('createLogger', () => {
  it('writes one JSON object per line with --log-format json', () => {
    const { logger, output } = capture({ format: 'json', level: 'info' });
    logger.info({ workItem: 'acme/app#7' }, 'worker polling main');
    const lines = output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      level: 30,
      msg: 'worker polling main',
      workItem: 'acme/app#7',
      pid: process.pid,
    });
  });

  it('writes readable lines, not JSON, by default', () => {
    const { logger, output } = capture({ format: 'pretty', level: 'info' });
    logger.warn('could not register search attributes');
    const line = output().trim();
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: could not register search attributes$/);
    expect(() => JSON.parse(line) as unknown).toThrow();
  });

  it.each(['json', 'pretty'] as const)('honours --log-level (%s)', (format) => {
    const { logger, output } = capture({ format, level: 'warn' });
    logger.debug('hidden debug');
    logger.info('hidden info');
    logger.warn('shown warning');
    logger.error('shown error');
    expect(output()).not.toMatch(/hidden/);
    expect(output()).toMatch(/shown warning[^]*shown error/);
  });

  it('logs debug lines at --log-level debug', () => {
    const { logger, output } = capture({ format: 'json', level: 'debug' });
    logger.debug('visible debug');
    expect(JSON.parse(output())).toMatchObject({ level: 20, msg: 'visible debug' });
  });

  it.each(['json', 'pretty'] as const)('never writes credentials (%s)', (format) => {
    const { logger, output } = capture({ format, level: 'info' });
    logger.info(
      {
        req: {
          method: 'POST',
          headers: {
            authorization: 'Bearer ghp_secretvalue1',
            'x-hub-signature-256': 'sha256=secretvalue2',
            'x-github-event': 'issues',
          },
        },
        token: 'secretvalue3',
        slack: { secret: 'secretvalue4' },
        request: { headers: { authorization: 'token secretvalue5' } },
        err: { message: 'Bad credentials', request: { headers: { authorization: 'token secretvalue6' } } },
      },
      'request',
    );
    expect(output()).not.toMatch(/secretvalue/);
    expect(output()).toContain('[redacted]');
    expect(output()).toContain('issues');
  });
});
