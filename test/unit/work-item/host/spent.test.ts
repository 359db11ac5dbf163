import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSpentTurns } from '../../../../src/budget/ledger';
import { configSchema } from '../../../../src/config/schema';
import { readWorkItemEvents } from '../../../../src/work-item/event-log';
import { countMissedTurns, countTurnsSpent } from '../../../../src/work-item/host/spent';
import { workItemDirs } from '../../../../src/work-item/paths';
import { refSlug, parseWorkItemRef } from '../../../../src/work-item/ref';
import { readRecord, writeRecord } from '../../../../src/work-item/registry';
import { finishDeliveryIteration, startDeliveryIteration } from '../../../../src/work-item/session-dir';
import { emptyUsage } from '../../../../src/session/usage-math';
import { sessionRecord } from '../../../support/registry-record';

const ITEM = 'github:octo/repo#5';
const slug = refSlug(parseWorkItemRef(ITEM));

describe("a work item's spent", () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'wi-spent-'));
  const dirs = workItemDirs(configSchema.parse({}), stateDir);
  const sessionDir = join(stateDir, 'sessions', 's1');
  writeRecord(dirs, { ...sessionRecord(ITEM, [], null), session_dir: sessionDir });
  /** Turn n ends: its result.json, with its usage when it has one. */
  const turn = (n: number, costUsd: number | null, unpriced: string[] = []) => {
    startDeliveryIteration(sessionDir, n, `event ${n}`);
    finishDeliveryIteration(sessionDir, n, {
      success: true,
      text: 'ok',
      error: null,
      harnessSessionId: null,
      usage:
        costUsd === null
          ? null
          : {
              usage: { ...emptyUsage(), input_tokens: 10, cost_usd: costUsd, num_turns: 1 },
              unpriced,
              complete: true,
            },
    });
  };
  const warnings: string[] = [];
  const warn = (line: string) => warnings.push(line);

  it('counts each turn once from its result.json, however often it is asked, in the record, the ledger and the log', async () => {
    turn(1, 0.1);
    expect(await countTurnsSpent(dirs, ITEM, sessionDir, warn)).toBe(0.1);
    expect(await countTurnsSpent(dirs, ITEM, sessionDir, warn)).toBe(0.1);
    // a turn with no usage (cut short before it began) counts nothing; turn 3 is counted past it
    turn(2, null);
    turn(3, 0.2, ['claude-unknown-1']);
    expect(await countTurnsSpent(dirs, ITEM, sessionDir, warn)).toBe(0.3);
    const spent = readRecord(dirs, slug)?.spent;
    expect(spent).toMatchObject({
      usage: { cost_usd: 0.3, input_tokens: 20, num_turns: 2 },
      unpriced_models: ['claude-unknown-1'],
      last_counted: { session_dir: sessionDir, iteration: 3 },
    });
    expect(warnings).toEqual([
      `${ITEM}: the model claude-unknown-1 has no price, so its turns' cost shows as unpriced: add it under pricing: in the configuration`,
    ]);
    expect(readSpentTurns(dirs.stateRoot).map((t) => [t.turn, t.cost_usd, t.unpriced])).toEqual([
      [`${sessionDir}#1`, 0.1, false],
      [`${sessionDir}#3`, 0.2, true],
    ]);
    const logged = readWorkItemEvents(dirs, slug).filter((e) => e.type === 'turn.spent');
    expect(logged.map((e) => e.data?.['iteration'])).toEqual([1, 3]);
  });

  it('a turn that ended while no worker counted it is counted at the next start', async () => {
    // the worker died after turn 4's result.json, before counting it
    turn(4, 0.05);
    await countMissedTurns(dirs, warn);
    expect(readRecord(dirs, slug)?.spent?.usage.cost_usd).toBe(0.35);
    expect(readRecord(dirs, slug)?.spent?.last_counted.iteration).toBe(4);
  });

  it('a count whose worker died before it wrote the record logs and books each turn once when it is made again', async () => {
    turn(5, 0.25);
    const before = readRecord(dirs, slug);
    if (!before) throw new Error('no record');
    await countTurnsSpent(dirs, ITEM, sessionDir, warn);
    // the ledger and the log have turn 5, the record does not: as when the worker died between them
    writeRecord(dirs, before);
    expect(await countTurnsSpent(dirs, ITEM, sessionDir, warn)).toBe(0.6);
    const logged = readWorkItemEvents(dirs, slug).filter((e) => e.type === 'turn.spent');
    expect(logged.map((e) => e.data?.['iteration'])).toEqual([1, 3, 4, 5]);
    expect(readSpentTurns(dirs.stateRoot).filter((t) => t.turn === `${sessionDir}#5`)).toHaveLength(1);
  });
});
