/**
 * Builds the CLI's V8 start-up snapshot after tsc (`npm run build`, `prepare`): webpack bundles
 * dist/src/cli/snapshot-main.js into dist/snapshot/cli.js, then this node builds dist/snapshot/cli.blob from it and
 * writes its own path to dist/snapshot/node. The launcher (bin/the-loop.js) uses the blob only with that node, and
 * only while dist/.tsbuildinfo is not newer than the blob (a bare `tsc` since would make it stale).
 *
 *   node dist/scripts/build-snapshot.js [--force]
 *
 * Skips the work when the blob is newer than everything it is made of. A snapshot runs no module loader, so the
 * bundle must hold every module the commands use: a module webpack cannot bundle fails the build, as does any of the
 * Temporal SDK. The modules through which `loopy status` would load the Temporal client are replaced by
 * src/cli/snapshot-stub.ts: a run that needs them hands over to the script (src/cli/snapshot-hand-over.ts).
 */
import { execa } from 'execa';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { minify } from 'terser';
import webpack from 'webpack';

// Run only compiled, from dist/scripts/: it bundles what tsc put in dist/.
const REPO = resolve(__dirname, '..', '..');
const ENTRY = join(REPO, 'dist', 'src', 'cli', 'snapshot-main.js');
const OUT = join(REPO, 'dist', 'snapshot');
const BLOB = join(OUT, 'cli.blob');
const NODE_STAMP = join(OUT, 'node');
/** Clients the commands never need: bundled, they would mean an import went astray (and a heavier heap). */
const FORBIDDEN = /[\\/]node_modules[\\/](@temporalio|@slack|octokit|@octokit)[\\/]/;
/** Requests of what loads the Temporal client for `loopy status`: the local worker's socket answers without it. */
const HANDED_OVER = /(^@temporalio[\\/]envconfig$|[\\/]connect-existing\.js$|[\\/]live-state\.js$)/;
const STUB = join(REPO, 'dist', 'src', 'cli', 'snapshot-stub.js');
/** zod's index of its locales, as its modules request it; replaced by one of English alone. */
const ZOD_LOCALES = /^\.\.[\\/]locales[\\/]index\.cjs$/;
const ENGLISH_ONLY = join(REPO, 'dist', 'src', 'cli', 'snapshot-zod-locales.js');

const mtime = (file: string) => statSync(file).mtimeMs;

function upToDate(): boolean {
  if (!existsSync(BLOB) || !existsSync(NODE_STAMP)) return false;
  const inputs = [
    join(REPO, 'dist', '.tsbuildinfo'),
    join(REPO, 'node_modules', '.package-lock.json'),
    __filename,
  ];
  const built = mtime(BLOB);
  return (
    inputs.every((file) => !existsSync(file) || mtime(file) < built) &&
    readFileSync(NODE_STAMP, 'utf8').trim() === process.execPath
  );
}

function bundle(): Promise<void> {
  const compiler = webpack({
    mode: 'production',
    target: 'node',
    entry: ENTRY,
    // the blob and its stamp stay until the new ones replace them
    output: { path: OUT, filename: 'cli.js', clean: { keep: /^(cli\.blob|node)$/ } },
    // shrink() below does it, with names kept for readable stacks under --debug
    optimization: { minimize: false },
    devtool: false,
    // Node's own __dirname: version.ts finds package.json from it (dist/snapshot/, when the blob is built).
    node: { __dirname: false, __filename: false },
    // One file: the lazily imported modules too, since a snapshot has no loader to fetch a chunk with.
    plugins: [
      new webpack.optimize.LimitChunkCountPlugin({ maxChunks: 1 }),
      new webpack.NormalModuleReplacementPlugin(
        ZOD_LOCALES,
        (resource: { request: string; context: string }) => {
          if (/[\\/]node_modules[\\/]zod[\\/]/.test(resource.context)) resource.request = ENGLISH_ONLY;
        },
      ),
      new webpack.NormalModuleReplacementPlugin(
        HANDED_OVER,
        (resource: { request: string; context: string }) => {
          resource.request = STUB;
          resource.context = dirname(STUB); // where the stub's own imports resolve from
        },
      ),
    ],
  });
  return new Promise((done, fail) =>
    compiler.run((error, stats) => {
      compiler.close(() => undefined);
      if (error) return fail(error);
      if (!stats) return fail(new Error('webpack returned no stats'));
      const info = stats.toJson({ all: false, errors: true, warnings: true, modules: true });
      const problems = [...(info.errors ?? []), ...(info.warnings ?? [])].map((p) => p.message);
      const forbidden = (info.modules ?? [])
        .map((m) => m.identifier ?? '')
        .filter((id) => FORBIDDEN.test(id));
      if (forbidden.length > 0)
        problems.push(`the snapshot would carry modules no file-only command needs: ${forbidden.join(', ')}`);
      if (problems.length > 0) return fail(new Error(problems.join('\n')));
      done();
    }),
  );
}

/**
 * The bundle's text is part of the heap the blob holds (V8 keeps a script's source), and every command that starts from
 * the blob loads all of it: without comments and with every character outside ASCII escaped (one such character makes
 * V8 keep the whole text two bytes a character), 2.0 MB held as 4.0 MB became 1.2 MB held as 1.2 MB, and a run of
 * `loopy list` 25 ms shorter. Names stay, for readable stacks under --debug.
 */
async function shrink(file: string): Promise<void> {
  const { code } = await minify(readFileSync(file, 'utf8'), {
    mangle: false,
    keep_classnames: true,
    keep_fnames: true,
    format: { comments: false, ascii_only: true },
  });
  if (code === undefined) throw new Error(`terser returned nothing for ${file}`);
  writeFileSync(file, code);
}

async function main(): Promise<void> {
  if (!process.argv.includes('--force') && upToDate()) return;
  mkdirSync(OUT, { recursive: true });
  await bundle();
  await shrink(join(OUT, 'cli.js'));
  const partial = `${BLOB}.partial`;
  rmSync(partial, { force: true });
  // node warns that it has not verified every built-in module for snapshots; the bundle is checked by the tests.
  await execa(process.execPath, ['--snapshot-blob', partial, '--build-snapshot', join(OUT, 'cli.js')], {
    cwd: OUT,
    env: { NODE_NO_WARNINGS: '1' },
    stdio: 'inherit',
  });
  // The stamp first: a blob without its stamp is never used, a stamp without its blob neither.
  writeFileSync(NODE_STAMP, `${process.execPath}\n`);
  renameSync(partial, BLOB);
}

main().catch((error: unknown) => {
  console.error(`build-snapshot: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
