import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { configSchema } from '../../../src/config/schema';
import { parseYamlWithSchema } from '../../../src/config/yaml-errors';

test("the README's configuration block parses as written and gives the defaults", () => {
  const readme = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
  const start = readme.indexOf('Every key is optional; the defaults:');
  const block = /```yaml\n([\s\S]*?)```/.exec(readme.slice(start))?.[1];
  expect(block).toBeDefined();
  const parsed = parseYamlWithSchema('README.md', block ?? '', configSchema);
  // namespace: the README shows the value a connection falls back to; the schema leaves it unset.
  expect(parsed).toEqual(configSchema.parse({ temporal: { namespace: 'default' } }));
  expect(parsed.harness.claude.permissionMode).toBe('acceptEdits');
});
