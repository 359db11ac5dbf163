import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { theLoopCacheDir } from '../config/cache-dir';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';

/**
 * A V8 code cache for the CLI's modules, so that a command does not parse and compile its dependencies' sources
 * again on every run (about half of what loading zod and YAML costs). Node 22 has this built in
 * (`module.enableCompileCache`) and gets that instead; Node 20 compiles every CommonJS file from source, so there
 * the loader's `_compile` is replaced by one that compiles through `vm.Script` with the cached data.
 *
 * The cache can only make a command faster, never break it: an entry whose source changed, a corrupt or truncated
 * file, or data V8 rejects is a miss; a directory that cannot be written is a cache that is never filled. Entries are
 * written at exit, when V8's data also covers the functions the command ran, each through a temporary file and a
 * rename, so concurrent CLIs never read half an entry.
 */

/** One entry: magic, crc32 of the source, crc32 of the data, length of the file name, the name, V8's data. */
const MAGIC = 0x746c6331; // "tlc1"
const HEADER = 16;
/**
 * What writing may add to a process's exit. A command writes its few hundred entries well within it on its first run;
 * a worker that loaded thousands of modules stops after it and leaves the rest to its next start.
 */
const WRITE_BUDGET_MS = 250;

interface Pending {
  script: Script;
  file: string;
  filename: string;
  sourceSum: number;
}

type Compile = (this: Module, content: string, filename: string, format?: string) => unknown;
type ModuleInternals = typeof Module & {
  wrap(script: string): string;
  _extensions: unknown;
  _cache: unknown;
  _resolveFilename(request: string, parent: Module, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: Module): string[] | null;
  enableCompileCache?: (dir: string) => unknown;
};
type RequireFunction = NodeJS.Require & { resolve: { paths: unknown } };

/**
 * $XDG_CACHE_HOME/the-loop (else ~/.cache/the-loop), or THE_LOOP_COMPILE_CACHE_DIR (a test run keeps its own, which
 * goes with it), one folder per Node version and architecture.
 */
export function compileCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.THE_LOOP_COMPILE_CACHE_DIR || join(theLoopCacheDir(env), 'compile-cache');
  return join(base, `node-${process.version}-${process.arch}`);
}

/**
 * Installs the cache for this process; THE_LOOP_COMPILE_CACHE=0 turns it off, and so do a debugger and source maps
 * (both hook the loader's own compile, which this one bypasses).
 */
export function installCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  if (env.THE_LOOP_COMPILE_CACHE === '0') return;
  if (process.execArgv.some((flag) => flag.startsWith('--inspect'))) return;
  if ((process as { sourceMapsEnabled?: boolean }).sourceMapsEnabled === true) return;
  const dir = compileCacheDir(env);
  if (!ownedByUs(dir)) return;
  const internals = Module as ModuleInternals;
  if (typeof internals.enableCompileCache === 'function') {
    internals.enableCompileCache(dir);
    return;
  }
  const loader = Module.prototype as unknown as { _compile: Compile };
  const original = loader._compile;
  const pending: Pending[] = [];
  loader._compile = function compileWithCache(
    this: Module,
    content: string,
    filename: string,
    format?: string,
  ) {
    // V8 11 drops a script's dynamic-import callback when it comes from cached data: such files compile as usual.
    if ((format !== undefined && format !== 'commonjs') || /\bimport\s*\(/.test(content))
      return original.call(this, content, filename, format);
    const file = join(
      dir,
      `${crc32(filename).toString(16)}-${(filename.split('/').pop() ?? '').slice(0, 100)}`,
    );
    const sourceSum = crc32(content);
    const cachedData = readEntry(file, filename, sourceSum);
    let script: Script;
    try {
      script = new Script(internals.wrap(content.replace(/^#!.*/, '')), { filename, cachedData });
    } catch {
      // ESM syntax in a .js file, or a real syntax error: the loader's own path decides and reports it
      return original.call(this, content, filename, format);
    }
    if (cachedData === undefined || script.cachedDataRejected === true)
      pending.push({ script, file, filename, sourceSum });
    const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return wrapper.call(
      this.exports,
      this.exports,
      requireFor(this, internals),
      this,
      filename,
      dirname(filename),
    );
  };
  process.once('exit', () => writeEntries(dir, pending));
}

/**
 * Compiled code from the cache runs as the CLI's own: a directory someone else owns or may write to is not used
 * (one that does not exist yet is made 0700).
 */
function ownedByUs(dir: string): boolean {
  try {
    const stat = statSync(dir);
    return stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
  } catch {
    return true;
  }
}

/** The cached data for `filename` when the entry is whole and was made from this very source; else undefined. */
function readEntry(file: string, filename: string, sourceSum: number): Buffer | undefined {
  let entry: Buffer;
  try {
    entry = readFileSync(file);
  } catch {
    return undefined;
  }
  if (entry.length < HEADER || entry.readUInt32LE(0) !== MAGIC || entry.readUInt32LE(4) !== sourceSum)
    return undefined;
  const nameEnd = HEADER + entry.readUInt32LE(12);
  if (nameEnd > entry.length || entry.toString('utf8', HEADER, nameEnd) !== filename) return undefined;
  const data = entry.subarray(nameEnd);
  // V8 checks its data's version and length but, in release builds, not its contents
  return data.length > 0 && crc32(data) === entry.readUInt32LE(8) ? data : undefined;
}

function writeEntries(dir: string, pending: Pending[]): void {
  if (pending.length === 0) return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return;
  }
  const stopAt = performance.now() + WRITE_BUDGET_MS;
  for (const { script, file, filename, sourceSum } of pending) {
    if (performance.now() > stopAt) return;
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      const data = script.createCachedData();
      const name = Buffer.from(filename);
      const header = Buffer.alloc(HEADER);
      header.writeUInt32LE(MAGIC, 0);
      header.writeUInt32LE(sourceSum, 4);
      header.writeUInt32LE(crc32(data), 8);
      header.writeUInt32LE(name.length, 12);
      writeFileSync(temporary, Buffer.concat([header, name, data]), { mode: 0o600 });
      renameSync(temporary, file);
    } catch {
      // a full disk or a read-only cache: this run stays uncached, and so may the next
      try {
        rmSync(temporary, { force: true });
      } catch {
        // nothing was written, or nothing can be
      }
      return;
    }
  }
}

/** The `require` Node gives a module (lib/internal/modules/helpers.js makeRequireFunction), for our compile. */
function requireFor(module: Module, internals: ModuleInternals): RequireFunction {
  const require = ((id: string) => module.require(id)) as RequireFunction;
  const resolve = (request: string, options?: unknown) =>
    internals._resolveFilename(request, module, false, options);
  resolve.paths = (request: string) => internals._resolveLookupPaths(request, module);
  Object.assign(require, {
    resolve,
    main: process.mainModule,
    extensions: internals._extensions,
    cache: internals._cache,
  });
  return require;
}
