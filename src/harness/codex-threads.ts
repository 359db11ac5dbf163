import * as path from 'node:path';
import { z } from 'zod';

import { readJsonIfExists, writeJsonAtomic } from '../session/json-file';
import { usageSchema, type Usage } from '../session/schemas/usage';

/**
 * codex_threads.json in a session's harness_outputs/: per codex thread, the usage its last `turn.completed`
 * reported. codex reports usage cumulative over the whole thread, not per turn, so a resumed turn's own usage is
 * the difference to the thread's previous total.
 */
export const codexThreadsFileSchema = z.object({
  schema_version: z.literal(1),
  threads: z.record(z.string(), usageSchema),
});

export function codexThreadsFile(sessionDir: string): string {
  return path.join(sessionDir, 'harness_outputs', 'codex_threads.json');
}

/** The turn's own usage from the thread's cumulative `total`, and the total remembered for the thread's next turn. */
export function codexTurnUsage(sessionDir: string, threadId: string, total: Usage, resumed: boolean): Usage {
  const file = codexThreadsFile(sessionDir);
  let known: z.infer<typeof codexThreadsFileSchema>;
  try {
    known = readJsonIfExists(file, codexThreadsFileSchema) ?? { schema_version: 1, threads: {} };
  } catch {
    known = { schema_version: 1, threads: {} };
  }
  const before = resumed ? known.threads[threadId] : undefined;
  writeJsonAtomic(file, codexThreadsFileSchema, {
    schema_version: 1,
    threads: { ...known.threads, [threadId]: total },
  });
  if (!before) return total;
  const less = (key: keyof Usage) => Math.max(0, total[key] - before[key]);
  return {
    input_tokens: less('input_tokens'),
    output_tokens: less('output_tokens'),
    cache_read_input_tokens: less('cache_read_input_tokens'),
    cache_creation_input_tokens: less('cache_creation_input_tokens'),
    cost_usd: less('cost_usd'),
    num_turns: total.num_turns,
    duration_ms: total.duration_ms,
  };
}
