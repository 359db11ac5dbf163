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

function layerRules() {
  return layers.slice(1).map((layer, index) => {
    const above = layers.slice(0, index + 1).flat();
    const workflows = layer.includes('workflows');
    const restriction = {
      patterns: [
        {
          regex: `^(\\.\\.?/)+(${above.join('|')})/`,
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
    return {
      files: layer.map((folder) => (folder === '.' ? 'src/*.ts' : `src/${folder}/**/*.ts`)),
      rules: { '@typescript-eslint/no-restricted-imports': ['error', restriction] },
    };
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
