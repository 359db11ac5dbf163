#!/bin/sh
":" /*
# This file is read twice. sh runs this comment: the launcher, which ends in `exec`, so sh reads no further. node
# then runs the script after the comment (a shebang line, then a string statement, are valid JavaScript).
#
# The commands run most often (`sessions list`, `list`, `inbox`, loopy's `status`) start node from the CLI's V8
# start-up snapshot (src/cli/snapshot-main.ts, built by scripts/build-snapshot.ts) when the build made one with this
# node and no tsc has run since. Not with NODE_OPTIONS: V8 refuses a snapshot under other V8 flags. Anything else,
# or any doubt, runs the script below. THE_LOOP_SNAPSHOT=0 turns the snapshot off.
served_by_snapshot() {
  while :; do
    case $1 in
    --debug | --config=*) shift ;;
    --config) if [ $# -lt 2 ]; then return 1; fi && shift 2 ;;
    *) break ;;
    esac
  done
  case $1 in
  list | inbox) ;;
  sessions) [ "$2" = list ] ;;
  # the-loop's own status is the service's; loopy's is a goal session's
  status)
    case $0 in
    loopy | *[/]loopy) ;; # not the usual pattern: a star then a slash would end this JavaScript comment
    *) return 1 ;;
    esac
    ;;
  *) return 1 ;;
  esac
}
if served_by_snapshot "$@" && [ -z "${NODE_OPTIONS-}" ] && [ "${THE_LOOP_SNAPSHOT-}" != 0 ]; then
  self=$0
  if [ -L "$self" ]; then self=$(readlink -f -- "$self"); fi
  snapshot=${self%/*}/../dist/snapshot
  if [ -f "$snapshot/cli.blob" ] && read -r built_by 2>/dev/null <"$snapshot/node" &&
    [ "$(command -v node)" -ef "$built_by" ] && [ ! "$snapshot/../.tsbuildinfo" -nt "$snapshot/cli.blob" ]; then
    node --snapshot-blob "$snapshot/cli.blob" "$0" "$@"
    status=$?
    # 14: node refused the blob (another node version at the same path: the message is out), or the run needs a
    # module the snapshot does not hold (src/cli/snapshot-hand-over.ts: nothing is out): the command runs
    if [ "$status" != 14 ]; then exit "$status"; fi
  fi
fi
exec node "$0" "$@"
*/
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

// `--version` alone answers from package.json: the CLI's modules are not worth loading for one line.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  process.stdout.write(require('../package.json').version + '\n');
  return;
}

const entry = join(__dirname, '..', 'dist', 'src', 'cli', 'main.js');
if (!existsSync(entry)) {
  process.stderr.write(
    'the-loop: not built yet — run `npm install` (or `npm run build`) in ' + join(__dirname, '..') + '\n',
  );
  process.exit(1);
}
// Compiled code of the CLI's modules kept between runs (src/cli/compile-cache.ts): most of what a command costs.
require(join(__dirname, '..', 'dist', 'src', 'cli', 'compile-cache.js')).installCompileCache();
require(entry)
  .main(process.argv)
  .then((code) => {
    process.exitCode = code;
  });
