import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function readVersion(): string {
  for (const up of ['..', '../..', '../../..']) {
    try {
      const pkg = JSON.parse(readFileSync(join(__dirname, up, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'the-loop' && pkg.version) return pkg.version;
    } catch {
      // keep looking upwards
    }
  }
  return '0.0.0';
}

export const VERSION = readVersion();
