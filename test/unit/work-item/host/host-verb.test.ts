import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { hostVerbNamed, HostError } from '../../../../src/work-item/host';
import { hostVerbs } from '../../../../src/work-item/host/verbs';

type HostVerbLike = (typeof hostVerbs)[number];

describe('host verbs are found by their update name, in the list of src/work-item/host/verbs.ts', () => {
  it('lists some verbs, no two answering the same update', () => {
    const names = hostVerbs.map((verb) => verb.update.name);
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
  });

  it.each(hostVerbs.map((verb) => [verb.update.name, verb] as const))(
    '%s is found by its name',
    (name, verb) => {
      expect(hostVerbNamed(name)).toBe(verb);
    },
  );

  it('lists every host verb a file of the folder exports, and nothing else', async () => {
    const folder = join(__dirname, '../../../../src/work-item/host');
    const exportedVerbs = new Set<unknown>();
    for (const file of readdirSync(folder).filter((f) => f.endsWith('.ts'))) {
      const exported = (await import(join(folder, file))) as Record<string, unknown>;
      for (const value of Object.values(exported)) {
        const update = (value as { update?: { type?: unknown } } | null)?.update;
        if (update?.type === 'update' && typeof (value as { run?: unknown }).run === 'function') {
          exportedVerbs.add(value);
        }
      }
    }
    const names = (verbs: Iterable<unknown>) => [...verbs].map((v) => (v as HostVerbLike).update.name).sort();
    expect(names(exportedVerbs)).toEqual(names(hostVerbs));
    expect(new Set<unknown>(hostVerbs)).toEqual(exportedVerbs);
  });

  it('an update no listed verb answers is bad input, not a retry', () => {
    let failure: unknown = null;
    try {
      hostVerbNamed('workItem.noSuchVerb');
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(HostError);
    expect(failure).toMatchObject({
      kind: 'bad-input',
      message: 'no host verb answers the update workItem.noSuchVerb',
    });
  });
});
