import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TheLoopConfig } from '../config/schema';
import { isErrno } from '../errors';

/** `NAME=VALUE` lines, optional `export `, optional single or double quotes, `#` comments. */
export function parseEnvFile(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    let value = match[2] ?? '';
    const quoted = /^(['"])(.*)\1$/.exec(value);
    if (quoted) value = quoted[1] === '"' ? (quoted[2] ?? '').replace(/\\n/g, '\n') : (quoted[2] ?? '');
    else value = value.replace(/\s+#.*$/, '');
    values.set(match[1] ?? '', value);
  }
  return values;
}

export function readEnvFile(file: string | undefined): Map<string, string> {
  if (!file) return new Map();
  try {
    return parseEnvFile(readFileSync(file, 'utf8'));
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return new Map();
    throw new Error(`${file}: cannot read the env file (${(err as NodeJS.ErrnoException).code ?? 'error'})`, {
      cause: err,
    });
  }
}

/** What a hosted session's environment should be, re-read from the config and env.file at each spawn. */
export interface DeclaredEnvironment {
  /** Non-secret names handed to tmux as `-e NAME=VALUE`; a name with no current value is left out. */
  forwarded: { name: string; value: string }[];
  /** Credential names and every other name env.file declares: kept out with `env -u`, and out of tmux. */
  keptOut: string[];
  /** Credential names that env.sessionPassthrough lists: refused, never forwarded. */
  refused: string[];
  /** Neither env.file nor env.sessionPassthrough is configured. */
  declared: boolean;
}

/** env.credentialNames, and the Slack names: credentials even when the config renames them. */
export function credentialNames(config: TheLoopConfig): Set<string> {
  const slack = config.slack ? [config.slack.botTokenEnv, config.slack.signingSecretEnv] : [];
  return new Set([...config.env.credentialNames, ...slack]);
}

export function declaredEnvironment(
  config: TheLoopConfig,
  processEnv: NodeJS.ProcessEnv = process.env,
): DeclaredEnvironment {
  const credentials = credentialNames(config);
  const fileValues = readEnvFile(config.env.file);
  const passthrough = [...new Set(config.env.sessionPassthrough)];
  const refused = passthrough.filter((name) => credentials.has(name));
  const forwardNames = passthrough.filter((name) => !credentials.has(name));
  const forwarded: DeclaredEnvironment['forwarded'] = [];
  for (const name of forwardNames) {
    const value = fileValues.get(name) ?? processEnv[name];
    if (value !== undefined) forwarded.push({ name, value });
  }
  const keptOut = new Set<string>(credentials);
  for (const name of fileValues.keys()) if (!forwardNames.includes(name)) keptOut.add(name);
  return {
    forwarded,
    keptOut: [...keptOut].sort(),
    refused,
    declared: Boolean(config.env.file) || config.env.sessionPassthrough.length > 0,
  };
}

/** A truncated SHA-256: identifies a value without printing it. */
export function fingerprint(value: string): string {
  return `sha256:${createHash('sha256').update(value, 'utf8').digest('hex').slice(0, 12)}`;
}

/** The environment tmux itself runs with: every kept-out name removed. */
export function environmentWithout(names: readonly string[], env: NodeJS.ProcessEnv = process.env) {
  const copy: NodeJS.ProcessEnv = { ...env };
  for (const name of names) delete copy[name];
  return copy;
}

/** A process's own environment from /proc/<pid>/environ; null where the host will not report it. */
export function readProcessEnvironment(pid: number, procRoot = '/proc'): Map<string, string> | null {
  let raw: Buffer;
  try {
    raw = readFileSync(join(procRoot, String(pid), 'environ'));
  } catch {
    return null;
  }
  const env = new Map<string, string>();
  for (const entry of raw.toString('utf8').split('\0')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return env;
}

export interface EnvMismatch {
  name: string;
  problem: 'differs' | 'missing' | 'held';
  /** Fingerprint of what it should be (forwarded names only). */
  expected?: string;
}

/** Name by name: a forwarded name must hold its current value, a kept-out name must not be there at all. */
export function compareEnvironment(
  actual: Map<string, string>,
  declared: DeclaredEnvironment,
): EnvMismatch[] {
  const mismatches: EnvMismatch[] = [];
  for (const { name, value } of declared.forwarded) {
    const held = actual.get(name);
    if (held === undefined) mismatches.push({ name, problem: 'missing', expected: fingerprint(value) });
    else if (held !== value) mismatches.push({ name, problem: 'differs', expected: fingerprint(value) });
  }
  for (const name of declared.keptOut) if (actual.has(name)) mismatches.push({ name, problem: 'held' });
  return mismatches;
}

export function describeMismatch(m: EnvMismatch): string {
  switch (m.problem) {
    case 'held':
      return `${m.name} held; a session must not hold it`;
    case 'missing':
      return `${m.name} missing (should be ${m.expected ?? '?'})`;
    case 'differs':
      return `${m.name} differs (should be ${m.expected ?? '?'})`;
  }
}
