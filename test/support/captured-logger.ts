import { PassThrough } from 'node:stream';
import { createLogger } from '../../src/log/logger';
import type { LogOptions } from '../../src/log/options';

/** A real pino logger of the given format and level, its output kept for assertions. */
export function capturedLogger(options: LogOptions = { format: 'json', level: 'debug' }) {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { logger: createLogger(options, stream), output: () => text };
}
