/**
 * Webhook receiver benchmark. The goal (issue 28): at 16 concurrent senders the receiver accepts at ≥ 0.9× the
 * rate of a bare node:http server that only verifies the signature, measured in the same run, with POST p99
 * ≤ 20 ms. The receiver answers 202 once the delivery is fsync'ed into its inbox, while its forwarding thread
 * turns the inbox into signals recorded by Temporal (the drain) — as `the-loop webhook` runs it. Bare server and
 * receiver take turns, twice, so that a change in the machine's load shows as two ratios that disagree. Each
 * round also has the receiver with a no-op handler in its thread (accept only: nothing drains into Temporal), so
 * that what accepting costs and what the drain beside it costs show apart. Beside them: raw Temporal signals
 * from a client (no HTTP), what the drain is compared with.
 *
 *   npm run build && node dist/bench/webhook-receiver.js [--deliveries 3000] [--concurrency 16] [--items 20]
 *     [--forward-concurrency 16]  the forwarder's webhook.forwardConcurrency
 *     [--db-dir DIR]   where the dev server's SQLite file lives (default: the temp dir; /dev/shm shows how much
 *                      of the signal cost is the dev server's storage)
 *     [--sqlite-pragmas default|none|P,P]  the dev server's SQLite pragmas: the-loop's (WAL, synchronous=NORMAL),
 *                      SQLite's own defaults (rollback journal, synchronous=FULL: the figures before that change),
 *                      or a comma-separated list
 *     [--server-arg=ARG]...  more `temporal server start-dev` flags, e.g. --server-arg=--dynamic-config-value
 *                      --server-arg=KEY=VALUE (repeatable; the `=` form keeps them apart from this script's)
 *     [--rate R]       also offer deliveries open-loop at R/s (GitHub does not wait for one delivery before
 *                      sending the next): latency from each delivery's scheduled send time, so a receiver that
 *                      falls behind shows it (no coordinated omission). Default 300; 0 skips the row.
 *
 * Prints figures; never a timed test.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { configSchema } from '../src/config/schema';
import { bridgeHandlerModule } from '../src/webhook/bridge-handler';
import { DeliveryLedger, deliveryLedgerFile } from '../src/webhook/dedupe';
import { DeliveryInbox, deliveryInboxFile } from '../src/webhook/inbox';
import { createReceiver, type Receiver } from '../src/webhook/receiver';
import { signBody } from '../test/support/fake-github/sign';
import {
  deliverEventSignal,
  WORK_ITEM_WORKFLOW_TYPE,
  workItemWorkflowId,
} from '../src/workflows/work-item/messages';
import { DEV_SERVER_SQLITE_PRAGMAS, stopProcess } from '../src/service/dev-server';
import { startScratchDevServer } from '../test/support/dev-server';
import { resolveTemporalCli } from '../src/service/resolve-cli';
import { FakeGitHub } from '../test/support/fake-github/server';
import { issueCommentPayload } from '../test/support/fake-github/payloads';

const SECRET = 'bench-secret';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

interface Delivery {
  body: string;
  headers: Record<string, string>;
}

function deliveries(n: number, items: number, prefix: string): Delivery[] {
  const template = issueCommentPayload('placeholder', 'benchbot', ['bug']);
  return Array.from({ length: n }, (_, i) => {
    const payload = structuredClone(template);
    (payload.issue as Record<string, unknown>).number = (i % items) + 1;
    const comment = payload.comment as Record<string, unknown>;
    comment.id = 1_000_000 + i;
    comment.body = `benchmark comment ${prefix}-${i}: please look at line ${i % 97}`;
    const body = JSON.stringify(payload);
    return {
      body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': `${prefix}-${i}`,
        'x-hub-signature-256': signBody(SECRET, body),
      },
    };
  });
}

interface Figures {
  name: string;
  n: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  statuses: Record<string, number>;
}

function serverArgs(): string[] {
  return process.argv
    .filter((a) => a.startsWith('--server-arg='))
    .map((a) => a.slice('--server-arg='.length));
}

/** The answer's status, or the network error's code (a reset connection is a figure, not a crash). */
async function postOnce(url: string, shot: Delivery): Promise<string> {
  try {
    const res = await fetch(url, { method: 'POST', body: shot.body, headers: shot.headers });
    await res.arrayBuffer();
    return String(res.status);
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return cause?.code ?? 'network error';
  }
}

/** Open loop: delivery i is sent at start + i/rate whatever happened to the others. */
async function offer(name: string, url: string, shots: Delivery[], rate: number): Promise<Figures> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const started = performance.now();
  await Promise.all(
    shots.map(async (shot, i) => {
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const status = await postOnce(url, shot);
      latencies.push(performance.now() - due);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    name,
    n: shots.length,
    seconds,
    perSecond: shots.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    max: latencies[latencies.length - 1] ?? 0,
    statuses,
  };
}

async function load(name: string, url: string, shots: Delivery[], concurrency: number): Promise<Figures> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < shots.length) {
        const shot = shots[next++] as Delivery;
        const t0 = performance.now();
        const status = await postOnce(url, shot);
        latencies.push(performance.now() - t0);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    name,
    n: shots.length,
    seconds,
    perSecond: shots.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    max: latencies[latencies.length - 1] ?? 0,
    statuses,
  };
}

function bareServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const given = Buffer.from(
        ((req.headers['x-hub-signature-256'] as string | undefined) ?? '').replace('sha256=', ''),
        'hex',
      );
      const expected = createHmac('sha256', SECRET).update(body).digest();
      const ok = given.length === expected.length && timingSafeEqual(given, expected);
      res.writeHead(ok ? 202 : 401, { 'content-type': 'application/json' });
      res.end(ok ? '{"status":"accepted"}' : '{"error":"bad signature"}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({ server, url: `http://127.0.0.1:${port}/github/webhook` });
    }),
  );
}

/** Closed-loop POSTs, then the wait until the forwarder handed every accepted delivery on. */
async function loadAndDrain(
  name: string,
  receiver: Receiver,
  url: string,
  shots: Delivery[],
  concurrency: number,
): Promise<{ accepted: Figures; drainPerSecond: number; backlogAtLastAnswer: number }> {
  const before = receiver.stats.forwarded;
  const started = performance.now();
  const accepted = await load(name, url, shots, concurrency);
  const backlogAtLastAnswer = receiver.stats.pending;
  while (receiver.stats.pending > 0 || receiver.stats.forwarded - before < shots.length)
    await new Promise((r) => setTimeout(r, 5));
  const seconds = (performance.now() - started) / 1000;
  return { accepted, drainPerSecond: (receiver.stats.forwarded - before) / seconds, backlogAtLastAnswer };
}

const acceptedCount = (f: Figures) => f.statuses['202'] ?? 0;

function line(f: Figures): string {
  return `${f.name.padEnd(44)} ${String(f.n).padStart(6)} ${f.perSecond.toFixed(0).padStart(8)}/s  p50 ${f.p50.toFixed(1).padStart(6)} ms  p99 ${f.p99.toFixed(1).padStart(6)} ms  max ${f.max.toFixed(0).padStart(5)} ms  ${JSON.stringify(f.statuses)}`;
}

const loadAverage = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  const n = arg('deliveries', 3000);
  const concurrency = arg('concurrency', 16);
  const items = arg('items', 20);
  const forwardConcurrency = arg('forward-concurrency', 16);
  const rateIndex = process.argv.indexOf('--rate');
  const rate = rateIndex >= 0 ? Math.max(0, Number(process.argv[rateIndex + 1]) || 0) : 300;
  const extraArgs = serverArgs();
  const pragmaIndex = process.argv.indexOf('--sqlite-pragmas');
  const pragmaArg = pragmaIndex >= 0 ? (process.argv[pragmaIndex + 1] ?? 'default') : 'default';
  const sqlitePragmas =
    pragmaArg === 'default' ? DEV_SERVER_SQLITE_PRAGMAS : pragmaArg === 'none' ? [] : pragmaArg.split(',');
  const dir = mkdtempSync(join(tmpdir(), 'the-loop-bench-webhook-'));
  const dbDirArg = process.argv.indexOf('--db-dir');
  const dbDir =
    dbDirArg >= 0 ? mkdtempSync(join(process.argv[dbDirArg + 1] ?? tmpdir(), 'the-loop-bench-db-')) : dir;
  const loadAtStart = loadAverage();
  const cli = await resolveTemporalCli({ onProgress: (l) => process.stderr.write(`${l}\n`) });
  const server = await startScratchDevServer({ cliPath: cli.path, dir, dbDir, sqlitePragmas, extraArgs });
  const fake = new FakeGitHub();
  try {
    const connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection, namespace: 'default' });
    await fake.start();
    const taskQueue = 'bench';
    // The work items' sessions: running workflows (no worker needed: a signal is recorded in the history
    // whether or not a worker runs, which is what "durable even while no worker runs" means).
    for (let i = 1; i <= items; i++) {
      const workItem = `github:codertocat/hello-world#${i}`;
      await client.workflow.start(WORK_ITEM_WORKFLOW_TYPE, {
        taskQueue,
        workflowId: workItemWorkflowId(workItem),
        args: [
          {
            workItem,
            hostQueue: `${taskQueue}.host.bench`,
            taskQueue,
            registration: null,
            registryDir: null,
          },
        ],
      });
    }
    // what `the-loop webhook` runs: the bridge in the receiver's forwarding thread, with its own connection
    const config = configSchema.parse({
      temporal: { address: server.address, taskQueue },
      github: { apiUrl: fake.url, authorizedUsers: ['benchbot'] },
      routing: { autoExecuteLabels: ['bug'] },
    });
    const receiver = createReceiver({
      secret: SECRET,
      path: '/github/webhook',
      maxBodyBytes: 1024 * 1024,
      ledger: DeliveryLedger.open(deliveryLedgerFile(dir)),
      inbox: await DeliveryInbox.open(deliveryInboxFile(dir)),
      forwardConcurrency,
      handlerModule: bridgeHandlerModule({ config, stateDir: dir }),
    });
    const { url } = await receiver.listen(0);
    const acceptOnly = createReceiver({
      secret: SECRET,
      path: '/github/webhook',
      maxBodyBytes: 1024 * 1024,
      ledger: DeliveryLedger.open(deliveryLedgerFile(join(dir, 'accept-only'))),
      inbox: await DeliveryInbox.open(deliveryInboxFile(join(dir, 'accept-only'))),
      forwardConcurrency,
      handlerModule: { module: join(__dirname, 'noop-handler.js'), options: null },
    });
    const acceptOnlyUrl = (await acceptOnly.listen(0)).url;
    const bare = await bareServer();

    const warm = deliveries(200, items, 'warm');
    await load('warm-up', bare.url, warm, concurrency);
    await loadAndDrain('warm-up', receiver, url, warm, concurrency);
    await loadAndDrain('warm-up', acceptOnly, acceptOnlyUrl, warm, concurrency);

    const results: Figures[] = [];
    const pairs: {
      bare: Figures;
      acceptOnly: Figures;
      receiver: Figures;
      drainPerSecond: number;
      backlog: number;
    }[] = [];
    for (const round of [1, 2]) {
      const bareRun = await load(
        `bare node:http, verify only (${round})`,
        bare.url,
        deliveries(n, items, `bare${round}`),
        concurrency,
      );
      const acceptOnlyRun = await loadAndDrain(
        `receiver, no-op handler: accept only (${round})`,
        acceptOnly,
        acceptOnlyUrl,
        deliveries(n, items, `noop${round}`),
        concurrency,
      );
      const run = await loadAndDrain(
        `receiver → inbox, forwarding apart (${round})`,
        receiver,
        url,
        deliveries(n, items, `full${round}`),
        concurrency,
      );
      results.push(bareRun, acceptOnlyRun.accepted, run.accepted);
      pairs.push({
        bare: bareRun,
        acceptOnly: acceptOnlyRun.accepted,
        receiver: run.accepted,
        drainPerSecond: run.drainPerSecond,
        backlog: run.backlogAtLastAnswer,
      });
    }
    bare.server.close();
    await acceptOnly.close();

    // Baseline for the drain: the same signals straight from a Temporal client, no HTTP, no receiver.
    let rawPerSecond = 0;
    {
      const raw = deliveries(n, items, 'raw');
      const latencies: number[] = [];
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < raw.length) {
            const i = next++;
            const t0 = performance.now();
            await client.workflow
              .getHandle(workItemWorkflowId(`github:codertocat/hello-world#${(i % items) + 1}`))
              .signal(deliverEventSignal, {
                id: `raw-${i}`,
                text: (raw[i] as Delivery).body.slice(0, 200),
                source: 'bench',
              });
            latencies.push(performance.now() - t0);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      const at = (q: number) =>
        latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
      rawPerSecond = n / seconds;
      results.push({
        name: 'raw Temporal signals, no HTTP',
        n,
        seconds,
        perSecond: n / seconds,
        p50: at(0.5),
        p99: at(0.99),
        max: latencies[latencies.length - 1] ?? 0,
        statuses: { signalled: n },
      });
    }

    let open: Figures | null = null;
    if (rate > 0) {
      open = await offer(`receiver, open loop at ${rate}/s`, url, deliveries(n, items, 'open'), rate);
      results.push(open);
      while (receiver.stats.pending > 0) await new Promise((r) => setTimeout(r, 5));
    }
    const retried = receiver.stats.retried;
    await receiver.close();

    // Every accepted delivery is a recorded signal: count them in the histories.
    let signalled = 0;
    for (let i = 1; i <= items; i++) {
      const history = await client.workflow
        .getHandle(workItemWorkflowId(`github:codertocat/hello-world#${i}`))
        .fetchHistory();
      signalled += (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;
    }
    const answered =
      acceptedCount(pairs[0]?.receiver as Figures) +
      acceptedCount(pairs[1]?.receiver as Figures) +
      (open ? acceptedCount(open) : 0);

    console.log(
      `webhook receiver benchmark — ${cpus().length} cores, load average ${loadAtStart} at the start, ${loadAverage()} at the end, node ${process.version}, ${n} signed issue_comment deliveries (${Buffer.byteLength(warm[0]?.body ?? '')} bytes) per row, ${concurrency} concurrent keep-alive clients (closed loop), ${items} work items, dev server SQLite pragmas: ${sqlitePragmas.length ? sqlitePragmas.join(' ') : "(SQLite's defaults)"}${extraArgs.length ? `, flags: ${extraArgs.join(' ')}` : ''}`,
    );
    for (const f of results) console.log(line(f));
    for (const [i, pair] of pairs.entries())
      console.log(
        `drain ${i + 1} (first POST → last signal, forwardConcurrency ${forwardConcurrency}): ${pair.drainPerSecond.toFixed(0)}/s = ` +
          `${(pair.drainPerSecond / rawPerSecond).toFixed(2)} × raw signals (${rawPerSecond.toFixed(0)}/s); ` +
          `backlog at the last answer ${pair.backlog}`,
      );
    console.log(
      `signals recorded in Temporal histories: ${signalled} (expected ${answered + n + warm.length} = deliveries answered 202 by the receiver + raw baseline + its warm-up); failed attempts retried ${retried}`,
    );
    const bareRate = pairs.reduce((sum, p) => sum + p.bare.perSecond, 0) / pairs.length;
    const receiverRate = pairs.reduce((sum, p) => sum + p.receiver.perSecond, 0) / pairs.length;
    const ratio = receiverRate / bareRate;
    const p99 = Math.max(...pairs.map((p) => p.receiver.p99));
    console.log(
      `goal at ${concurrency} senders: receiver ${receiverRate.toFixed(0)}/s vs bare ${bareRate.toFixed(0)}/s = ` +
        `${ratio.toFixed(2)}× (rounds: ${pairs.map((p) => (p.receiver.perSecond / p.bare.perSecond).toFixed(2)).join(', ')}) ` +
        `(goal ≥ 0.9×): ${ratio >= 0.9 ? 'met' : 'NOT met'}; p99 ${p99.toFixed(1)} ms, the worse round ` +
        `(goal p99 ≤ 20 ms): ${p99 <= 20 ? 'met' : 'NOT met'}; bare p99 ${Math.max(...pairs.map((p) => p.bare.p99)).toFixed(1)} ms; ` +
        `load average ${loadAverage()} (${cpus().length} cores)`,
    );
    const acceptOnlyRate = pairs.reduce((sum, p) => sum + p.acceptOnly.perSecond, 0) / pairs.length;
    console.log(
      `accept only (no-op handler, nothing drains): ${acceptOnlyRate.toFixed(0)}/s = ${(acceptOnlyRate / bareRate).toFixed(2)}× bare, ` +
        `p99 ${Math.max(...pairs.map((p) => p.acceptOnly.p99)).toFixed(1)} ms, the worse round`,
    );
    for (let i = 1; i <= items; i++)
      await client.workflow
        .getHandle(workItemWorkflowId(`github:codertocat/hello-world#${i}`))
        .terminate('benchmark done');
    await connection.close();
  } finally {
    await fake.stop();
    await stopProcess(server.pid, 10_000);
    rmSync(dir, { recursive: true, force: true });
    rmSync(dbDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
