// Deletes compiled files in dist/ whose TypeScript source is gone, so that the incremental build (tsc keeps
// dist/.tsbuildinfo) never leaves a deleted module behind: dist/src/ is what the package ships, and a path that
// still names a deleted module would load its old code instead of failing. Plain JavaScript: it runs before anything
// is compiled.
// dist/snapshot/ has no sources: it is the start-up snapshot's (scripts/build-snapshot.ts), which keeps it fresh.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

const dist = 'dist';
const snapshot = join(dist, 'snapshot');

function prune(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (path === snapshot) continue;
    if (entry.isDirectory()) {
      prune(path);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
      continue;
    }
    const output = /^(.*)\.js(\.map)?$/.exec(relative(dist, path));
    if (output && !existsSync(`${output[1]}.ts`)) rmSync(path);
  }
}

if (existsSync(dist)) prune(dist);
