import { z } from 'zod';
import { durationProblem, parseDuration } from './duration';
import { processSectionSchema } from './process-graph-file';
import { patternProblem } from './permission-policy';

/** Environment-variable names that are credentials: never forwarded into hosted sessions, never printed. */
export const DEFAULT_CREDENTIAL_NAMES = [
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'CURSOR_API_KEY',
  'TEMPORAL_API_KEY',
  'THE_LOOP_WEBHOOK_SECRET',
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
] as const;

/** A duration in the config is checked when the file is loaded, so every command refuses it alike (exit 2). */
function durationText(fallback: string) {
  return z
    .string()
    .default(fallback)
    .superRefine((text, ctx) => {
      if (parseDuration(text) === null) ctx.addIssue({ code: 'custom', message: durationProblem(text) });
    });
}

const harnessName = z.enum(['claude', 'cursor', 'codex', 'command']);

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/);
/**
 * Goal loops: the names this harness's runs get beyond the base set and the harness's own names
 * (src/harness/allowed-env.ts), from env.file or the worker's environment; credential names too. claude's API key
 * needs no listing: it goes through apiKeyHelper. Never a THE_LOOP_* name: those locate the-loop's config and state,
 * which hold its secrets, so listing one is refused rather than silently ignored.
 */
const harnessEnvNames = (defaults: string[] = []) =>
  z
    .array(
      envName.refine((name) => !name.startsWith('THE_LOOP_'), {
        message: "the-loop's own THE_LOOP_* variables never reach a harness",
      }),
    )
    .default(defaults);

const harnessLaunch = z
  .object({
    /** Executable to run instead of the harness's default name on PATH. */
    command: z.string().min(1).optional(),
    permissionMode: z.string().min(1).optional(),
    extraArgs: z.array(z.string()).default([]),
    /** claude: cap per turn, forwarded as --max-budget-usd. */
    maxBudgetUsdPerTurn: z.number().positive().optional(),
    /** Hosted sessions: how long the TUI may take to become ready before the spawn is reported as failed. */
    readyTimeoutSeconds: z.number().positive().optional(),
    env: harnessEnvNames(),
  })
  .strict();

/** In the config file `null` means "not set": the key's default applies (the README's defaults block writes it so). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [k, withoutNulls(v)]),
  );
}

/**
 * Goal loops run `claude -p` unattended: in its default mode it refuses every Write, Edit and Bash call (and still
 * reports success), so no turn could write a file, control.json included. acceptEdits lets it edit files under its
 * working directory (the session directory is there); Bash is still refused unless allowed some other way.
 */
export const DEFAULT_CLAUDE_PERMISSION_MODE = 'acceptEdits';

const configObjectSchema = z
  .object({
    temporal: z
      .object({
        address: z.string().min(1).optional(),
        namespace: z.string().min(1).optional(),
        taskQueue: z.string().min(1).default('the-loop'),
        /** Profile name in temporal.toml (@temporalio/envconfig). */
        profile: z.string().min(1).optional(),
        devServer: z
          .object({
            port: z.number().int().min(1).max(65535).default(7233),
            uiPort: z.number().int().min(1).max(65535).default(8233),
            ip: z.string().default('127.0.0.1'),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    worker: z
      .object({
        /** Names this host's activity queue `<taskQueue>.host.<hostId>`; defaults to the hostname. */
        hostId: z
          .string()
          .regex(/^[A-Za-z0-9._-]+$/)
          .optional(),
        heartbeatTimeout: durationText('30s'),
        shutdownGraceTime: durationText('10s'),
        /** The SDK's Prometheus metrics at http://<metricsHost>:<metricsPort>/metrics; off when unset. */
        metricsPort: z.number().int().min(1).max(65535).optional(),
        /** 127.0.0.1 keeps them on this machine; 0.0.0.0 lets a Prometheus elsewhere scrape them. */
        metricsHost: z.string().min(1).default('127.0.0.1'),
        /**
         * Sessions whose workflow state stays in memory between tasks; one beyond it is replayed from its history
         * when it next moves. Sized for 1,000 live sessions (about 0.5 MB each).
         */
        maxCachedWorkflows: z.number().int().min(0).default(1000),
        /**
         * Activities at once on this host. A session runs one activity at a time (a turn, a set-up, a state write),
         * so this bounds the live sessions of the host: 1,000 turns plus their neighbours' short steps by default.
         */
        maxConcurrentActivityTaskExecutions: z.number().int().min(1).default(2000),
      })
      .strict()
      .prefault({}),
    state: z
      .object({
        /** Work-item state root; defaults to the state directory. */
        root: z.string().min(1).optional(),
      })
      .strict()
      .prefault({}),
    harness: z
      .object({
        default: harnessName.default('claude'),
        claude: harnessLaunch
          .extend({ permissionMode: z.string().min(1).default(DEFAULT_CLAUDE_PERMISSION_MODE) })
          .prefault({}),
        // Each agent CLI keeps its own API key by default, as before credentials were kept out of goal loops.
        cursor: harnessLaunch.extend({ env: harnessEnvNames(['CURSOR_API_KEY']) }).prefault({}),
        // --sandbox: codex's own default is read-only, where it can neither edit nor write control.json
        codex: harnessLaunch
          .extend({
            permissionMode: z.string().min(1).default('workspace-write'),
            env: harnessEnvNames(['OPENAI_API_KEY']),
          })
          .prefault({}),
        command: z.object({ env: harnessEnvNames() }).strict().prefault({}),
        iterationTimeout: durationText('2h'),
      })
      .strict()
      .prefault({}),
    session: z
      .object({
        maxConsecutiveFailures: z.number().int().min(1).default(3),
        /** Default for `loopy run --max-iterations`: an unattended loop needs some bound. */
        maxIterations: z.number().int().min(1).default(100),
        /** Default for `loopy run --max-cost-usd`. */
        maxCostUsd: z.number().positive().optional(),
        /** A turn whose reply ends on a question pauses the session until `loopy update` answers it. */
        waitOnQuestion: z.boolean().default(true),
        /** A turn that failed because its agent was refused its tool calls pauses the session for a person. */
        waitOnPermission: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
    routing: z
      .object({
        registryDir: z.string().min(1).optional(),
        autoExecuteLabels: z.array(z.string().min(1)).default(['the-loop']),
        spawnOnUnmatched: z.enum(['never', 'labeled']).default('labeled'),
        requireStartCommand: z.boolean().default(true),
        /** An authorized closure (closed by a writer, or merged) also releases local resources, as cleanup does. */
        cleanupOnClose: z.boolean().default(true),
        /** One comment on the work item when its session starts waiting for a human (a permission prompt). */
        waitingComment: z.boolean().default(false),
        /** A hosted turn whose transcript has not grown this long shows as `waiting: stuck` (its harness still runs). */
        stuckAfter: durationText('20m'),
        tmux: z
          .object({
            socket: z.string().default('the-loop'),
            keepSessionOnClose: z.boolean().default(true),
            killHarnessOnClose: z.boolean().default(true),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
    /**
     * Spending limits in USD (src/budget/): a work item's own (default for `sessions start --max-cost-usd`), and the
     * fleet's per UTC day and month, across every work item and goal session of the state directory. Reaching one
     * holds the sessions concerned at `waiting: budget` until `the-loop budget raise` or a stop.
     */
    budget: z
      .object({
        workItem: z.number().positive().optional(),
        daily: z.number().positive().optional(),
        monthly: z.number().positive().optional(),
      })
      .strict()
      .prefault({}),
    /**
     * Prices of models (USD per million tokens of each kind), over the default table in src/pricing/prices.ts: a
     * turn a harness does not price itself (hosted claude, codex) is priced with them.
     */
    pricing: z
      .record(
        z.string().min(1),
        z
          .object({
            input: z.number().nonnegative(),
            output: z.number().nonnegative(),
            cacheRead: z.number().nonnegative(),
            cacheWrite: z.number().nonnegative(),
          })
          .strict(),
      )
      .default({}),
    permissions: z
      .object({
        /**
         * How a hosted claude's permission prompt is answered before a person is asked, by tool pattern (first match
         * wins): `Bash(npm test*)`: allow. A prompt no pattern matches is asked (held until a person answers).
         */
        remote: z
          .record(z.string(), z.enum(['ask', 'allow', 'deny']))
          .default({})
          .superRefine((remote, ctx) => {
            for (const pattern of Object.keys(remote)) {
              const problem = patternProblem(pattern);
              if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [pattern] });
            }
          }),
        /** A prompt held this long without an answer gets `onTimeout`; none: it waits without limit. */
        timeout: z
          .string()
          .optional()
          .superRefine((text, ctx) => {
            if (text !== undefined && parseDuration(text) === null)
              ctx.addIssue({ code: 'custom', message: durationProblem(text) });
          }),
        onTimeout: z.enum(['allow', 'deny']).default('deny'),
      })
      .strict()
      .prefault({}),
    workspace: z
      .object({
        strategy: z.enum(['worktree', 'clone']).default('worktree'),
        root: z.string().min(1).optional(),
        keepCheckoutOnClose: z.boolean().default(true),
      })
      .strict()
      .prefault({}),
    env: z
      .object({
        file: z.string().min(1).optional(),
        sessionPassthrough: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).default([]),
        credentialNames: z.array(z.string()).default([...DEFAULT_CREDENTIAL_NAMES]),
      })
      .strict()
      .prefault({}),
    github: z
      .object({
        apiUrl: z.string().url().default('https://api.github.com'),
        authorizedUsers: z.array(z.string()).default([]),
        appId: z.string().optional(),
        privateKeyFile: z.string().optional(),
        installationId: z.number().int().optional(),
        /**
         * Comments, reviews and review comments by users without write permission (and not in authorizedUsers)
         * are logged and dropped: their text would be pasted into an agent's pane (prompt injection). On, they
         * are delivered, marked as untrusted input. CI results carry no author and are always delivered.
         */
        deliverUntrustedComments: z.boolean().default(false),
        /**
         * The waits said on the work item's thread, one comment as each begins: a gate's question, a question the
         * agent's reply ends on, and, when listed, a permission prompt or a turn that stopped moving.
         */
        announceWaits: z
          .array(z.enum(['gate', 'question', 'permission', 'stuck']))
          .default(['gate', 'question']),
      })
      .strict()
      .prefault({}),
    /** The board: a web page of every session, served by `the-loop start` (docs/board.md). */
    board: z
      .object({
        /** 0: off. */
        port: z.number().int().min(0).max(65535).default(8780),
        /** Loopback by default; any other address needs a token. */
        host: z.string().min(1).default('127.0.0.1'),
        /** Read from THE_LOOP_BOARD_TOKEN when not set here; never printed. */
        token: z.string().min(16).optional(),
      })
      .strict()
      .prefault({}),
    webhook: z
      .object({
        port: z.number().int().min(0).max(65535).default(8787),
        path: z.string().startsWith('/').default('/github/webhook'),
        /** Read from THE_LOOP_WEBHOOK_SECRET when not set here. */
        secret: z.string().min(1).optional(),
        maxBodyBytes: z
          .number()
          .int()
          .positive()
          .default(1024 * 1024),
        /** Queued deliveries the forwarder hands to the bridge at once; one at a time per issue or pull request. */
        forwardConcurrency: z.number().int().min(1).max(1024).default(16),
      })
      .strict()
      .prefault({}),
    poller: z
      .object({
        interval: durationText('60s'),
        repositories: z.array(z.string()).default([]),
      })
      .strict()
      .prefault({}),
    /** The work item's process graph (inline, or `file:`); the default graph when absent. */
    process: processSectionSchema.optional(),
    /** A Slack thread per work item; off when absent. */
    slack: z
      .object({
        /** The channel the threads open in: its ID (C…, G…) or name. */
        channel: z.string().min(1),
        /** Slack member IDs (U…) whose thread replies reach the session; nobody else's ever do. */
        authorizedUsers: z.array(z.string().min(1)).default([]),
        /** Names of the environment variables holding the credentials: both kept out of hosted sessions. */
        botTokenEnv: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
          .default('SLACK_BOT_TOKEN'),
        signingSecretEnv: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
          .default('SLACK_SIGNING_SECRET'),
        apiUrl: z.string().url().default('https://slack.com/api/'),
      })
      .strict()
      .optional(),
  })
  .strict();

export const configSchema = z.preprocess(withoutNulls, configObjectSchema);

export type TheLoopConfig = z.infer<typeof configSchema>;
export type HarnessName = z.infer<typeof harnessName>;
