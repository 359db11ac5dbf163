import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** What a shell would run for `command`: a path as given, else the first executable of that name on PATH. */
export function findExecutable(command: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (command.includes('/')) {
    const file = isAbsolute(command) ? command : resolve(command);
    return isExecutable(file) ? file : null;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, command);
    if (isExecutable(file)) return file;
  }
  return null;
}
