import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';
import globals from 'globals';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

/**
 * The folders of src/ in layers, top to bottom (docs/layers.md says what each holds). A file imports from its own
 * layer and the layers below it, never from above: a wrong-way import fails lint. Workflow code may import the
 * types of the activities it proxies (the Temporal pattern), nothing else from above; and no Node built-ins.
 */
const layers = [
  ['cli'],
  ['service'],
  ['board', 'webhook', 'worker'],
  ['use-cases'],
  ['activities', 'evals'],
  ['bridge'],
  ['work-item', 'temporal', 'channel', 'harness', 'budget', 'hook-channel'],
  ['workflows'],
  ['session', 'config', 'github', 'process', 'pricing', 'json', 'log', '.'],
];

/** How deep src/ nests: src/cli/commands/sessions/<verb>.ts is 3 folders down. */
const MAX_DEPTH = 4;

/**
 * One rule per layer and folder depth: a relative import names another top folder of src/ only by climbing to src/
 * first, so a file `depth` folders down refuses `../` × depth followed by a folder above its layer. (A bare `./x/`
 * or a shorter climb stays inside the file's own folder, even when a subfolder shares a top folder's name, like
 * src/workflows/work-item/.)
 */
function layerRules() {
  return layers.slice(1).flatMap((layer, index) => {
    const above = layers.slice(0, index + 1).flat();
    const workflows = layer.includes('workflows');
    return Array.from({ length: MAX_DEPTH + 1 }, (_, depth) => {
      const climb = depth === 0 ? '\\./' : `(\\.\\./){${depth}}`;
      const restriction = {
        patterns: [
          {
            regex: `^${climb}(${above.join('|')})/`,
            message: `A layer imports only from its own layer and the ones below it (eslint.config.mjs, docs/layers.md).`,
            allowTypeImports: workflows,
          },
        ],
      };
      if (workflows) {
        restriction.paths = nodeBuiltins.map((name) => ({
          name,
          message: 'Workflow code must stay deterministic: no Node built-ins.',
        }));
      }
      const files = layer
        .filter((folder) => (folder === '.' ? depth === 0 : depth > 0))
        .map((folder) => (folder === '.' ? 'src/*.ts' : `src/${folder}/${'*/'.repeat(depth - 1)}*.ts`));
      return files.length > 0
        ? { files, rules: { '@typescript-eslint/no-restricted-imports': ['error', restriction] } }
        : null;
    }).filter((rule) => rule !== null);
  });
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'eslint.config.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['plugin/**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: { ...globals.node } },
  },
  {
    // One output path: a command prints through its Io (src/cli/io.ts), everything else logs through pino or the
    // SDK's log. The entry points write to process.stdout/stderr themselves.
    files: ['src/**/*.ts'],
    rules: { 'no-console': 'error' },
  },
  ...layerRules(),
);
