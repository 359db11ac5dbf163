/** The Temporal CLI version the project pins and builds. */
export const PINNED_TEMPORAL_CLI_VERSION = '1.5.1';
/** The Temporal server that CLI embeds: the version a cluster built from source runs (`the-loop temporal-server`). */
export const PINNED_TEMPORAL_SERVER_VERSION = '1.29.1';

/**
 * A `temporal` found on PATH is used when its version is >= 1.3.0 and < 2.0.0: 1.3 is the first release whose
 * `server start-dev` takes every flag we pass (--search-attribute, --db-filename, --ui-port, --headless, --log-format),
 * and a major release may change them.
 */
export const MIN_COMPATIBLE = [1, 3, 0] as const;
export const MAX_EXCLUSIVE_MAJOR = 2;

/**
 * `temporal --version` prints "temporal version 1.5.1 (Server 1.29.1, UI 2.42.1)"; a `go install` build prints
 * "0.0.0-DEV" as its own version, so for those the server version (1.27 or later for CLI 1.3+) decides.
 */
export function parseCliVersion(output: string): string | null {
  const match = /temporal version (\d+\.\d+\.\d+)(-DEV)?(?: \(Server (\d+\.\d+\.\d+))?/.exec(output);
  if (!match?.[1]) return null;
  if (match[1] !== '0.0.0') return match[1];
  return match[3] ? `source build (server ${match[3]})` : null;
}

const MIN_SERVER_OF_SOURCE_BUILD = [1, 27, 0] as const;

export function isCompatibleVersion(version: string): boolean {
  const sourceBuild = /^source build \(server (\d+\.\d+\.\d+)\)$/.exec(version);
  if (sourceBuild?.[1]) return atLeast(sourceBuild[1], MIN_SERVER_OF_SOURCE_BUILD);
  return atLeast(version, MIN_COMPATIBLE);
}

function atLeast(version: string, min: readonly [number, number, number]): boolean {
  const parts = version.split('.').map(Number);
  const [major = 0, minor = 0, patch = 0] = parts;
  if (major >= MAX_EXCLUSIVE_MAJOR) return false;
  const [minMajor, minMinor, minPatch] = min;
  if (major !== minMajor) return major > minMajor;
  if (minor !== minMinor) return minor > minMinor;
  return patch >= minPatch;
}
