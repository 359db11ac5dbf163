import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';

const root = join(__dirname, '../../..');

interface Finding {
  ruleId: string | null;
  message: string;
}

/**
 * What `npm run lint` says of each text as the file at its path (relative to the repository), in one ESLint (so the
 * project's TypeScript program is built once) and through lintText, so that nothing is written under src/: CI lints
 * the checkout while the tests run.
 */
async function lint(files: { path: string; text: string }[]): Promise<Finding[][]> {
  const script = `const { ESLint } = require('eslint');
let input = '';
process.stdin.on('data', (chunk) => (input += chunk)).on('end', async () => {
  const eslint = new ESLint({ cwd: process.cwd() });
  const found = [];
  for (const { path, text } of JSON.parse(input)) {
    const [result] = await eslint.lintText(text, { filePath: path });
    found.push(result.messages.map(({ ruleId, message }) => ({ ruleId, message })));
  }
  process.stdout.write(JSON.stringify(found));
});`;
  const run = await execa(process.execPath, ['-e', script], {
    cwd: root,
    input: JSON.stringify(files.map(({ path, text }) => ({ path: join(root, path), text }))),
    timeout: 600_000,
  });
  return JSON.parse(run.stdout) as Finding[][];
}

/** A file of src/ as it is. */
const own = (path: string) => readFileSync(join(root, path), 'utf8');

const MARKER = 'src/github/marker.ts';
const LIMITS = 'src/workflows/goal-session/limits.ts';
const FIND = 'src/harness/find-executable.ts';

// One ESLint building the project's TypeScript program: a minute on a loaded machine.
jest.setTimeout(15 * 60_000);

it('lint fails a wrong-way import, a Node built-in in workflow code and console in src/ (docs/layers.md)', async () => {
  const [asTheyAre, upwards, builtin, printing] = await lint([
    { path: MARKER, text: own(MARKER) },
    // github/ (the ground) importing cli/ (the top)
    { path: MARKER, text: `${own(MARKER)}\nexport { processIo } from '../cli/io';\n` },
    { path: LIMITS, text: `${own(LIMITS)}\nexport { readFileSync } from 'node:fs';\n` },
    { path: FIND, text: `${own(FIND)}\nconsole.log('hello');\n` },
  ]);
  expect(asTheyAre).toEqual([]);
  expect(upwards).toEqual([
    {
      ruleId: '@typescript-eslint/no-restricted-imports',
      message: expect.stringContaining('docs/layers.md') as string,
    },
  ]);
  expect(builtin).toEqual([
    {
      ruleId: '@typescript-eslint/no-restricted-imports',
      message: expect.stringContaining('deterministic') as string,
    },
  ]);
  // a command prints through its Io
  expect(printing).toEqual([{ ruleId: 'no-console', message: expect.any(String) as string }]);
});
