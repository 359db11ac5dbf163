// A Temporal cluster that is not the dev server: the pinned server built from source, on a PostgreSQL of its own
// (persistence and advanced visibility, PostgreSQL 12 schema), with frontend, history, matching and worker each a
// process of its own with its own config and ports. Tests restart services and the database under load.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection, isGrpcServiceError } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { waitForServer } from '../../../src/service/dev-server';
import { freePort } from '../dev-server';
import { resolveTemporalServer, type ResolvedServer } from '../../../src/service/resolve-server';
import { ensureSearchAttributes } from '../../../src/worker/search-attributes';
import { startPostgres, type Postgres } from './postgres';

const run = promisify(execFile);

/** gRPC's status code for a namespace registered by an earlier start on the same database. */
const GRPC_ALREADY_EXISTS = 6;

export const SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;
export type ServiceName = (typeof SERVICES)[number];

export interface TemporalCluster {
  /** host:port of the frontend. */
  address: string;
  namespace: string;
  postgres: Postgres;
  /** Per service: its process id, config directory and log. */
  services: Record<ServiceName, { pid: number; configDir: string; logFile: string }>;
  /** Stops a service (SIGTERM, SIGKILL after 30 s) and starts it again on the same config. */
  restartService(name: ServiceName): Promise<void>;
  stop(): Promise<void>;
}

const DATABASES = { temporal: 'postgresql/v12/temporal', temporal_visibility: 'postgresql/v12/visibility' };

async function createSchemas(sqlTool: string, pg: Postgres): Promise<void> {
  for (const [db, schemaName] of Object.entries(DATABASES)) {
    const common = [
      '--plugin',
      'postgres12',
      '--ep',
      pg.host,
      '-p',
      String(pg.port),
      '-u',
      pg.user,
      '--db',
      db,
    ];
    for (const args of [
      ['create-database'],
      ['setup-schema', '-v', '0.0'],
      ['update-schema', '--schema-name', schemaName],
    ]) {
      try {
        await run(sqlTool, [...common, ...args], { timeout: 120_000 });
      } catch (error) {
        const e = error as { stderr?: string; message: string };
        throw new Error(`temporal-sql-tool ${args[0]} on ${db} failed: ${(e.stderr || e.message).trim()}`, {
          cause: error,
        });
      }
    }
  }
}

interface Ports {
  grpc: number;
  membership: number;
}

function datastore(pg: Postgres, databaseName: string, maxConns: number) {
  return {
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `${pg.host}:${pg.port}`,
      connectProtocol: 'tcp',
      user: pg.user,
      password: '',
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  };
}

/** One service's config (its own log file): JSON is YAML, so the server's loader reads it as `<env>.yaml`. */
function serviceConfig(
  ports: Record<ServiceName, Ports>,
  pg: Postgres,
  logFile: string,
  dynamicConfigFile: string,
) {
  return {
    log: { level: 'warn', outputFile: logFile },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: 4,
      datastores: {
        'postgres-default': datastore(pg, 'temporal', 20),
        'postgres-visibility': datastore(pg, 'temporal_visibility', 4),
      },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    // Every service is listed (the membership monitor tracks them all); each process starts only its own.
    services: Object.fromEntries(
      SERVICES.map((service) => [
        service,
        {
          rpc: {
            grpcPort: ports[service].grpc,
            membershipPort: ports[service].membership,
            bindOnIP: '127.0.0.1',
          },
        },
      ]),
    ),
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `127.0.0.1:${ports.frontend.grpc}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
    publicClient: { hostPort: `127.0.0.1:${ports.frontend.grpc}` },
    dynamicConfigClient: { filepath: dynamicConfigFile, pollInterval: '10s' },
  };
}

// The dev server's limits on the history queues' poll rates, lifted likewise (see src/service/dev-server.ts).
const DYNAMIC_CONFIG = [
  'system.forceSearchAttributesCacheRefreshOnRead:',
  '  - value: true',
  'history.transferProcessorMaxPollRPS:',
  '  - value: 10000',
  'history.timerProcessorMaxPollRPS:',
  '  - value: 10000',
  'history.visibilityProcessorMaxPollRPS:',
  '  - value: 10000',
  '',
].join('\n');

function startService(server: string, name: ServiceName, configDir: string, logFile: string): ChildProcess {
  const out = openSync(logFile, 'a');
  const child = spawn(
    server,
    ['--root', configDir, '--config', '.', '--env', 'cluster', '--allow-no-auth', 'start', '--service', name],
    { stdio: ['ignore', out, out] },
  );
  closeSync(out);
  if (child.pid === undefined) throw new Error(`could not start the ${name} service`);
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((done) => child.once('exit', () => done()));
}

async function stopChild(child: ChildProcess): Promise<void> {
  const gone = exited(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await gone;
  clearTimeout(timer);
}

/**
 * Retries `attempt` until it succeeds or the deadline passes (then its last error is thrown). `stillAlive` throws
 * when retrying cannot help (a service process is gone).
 */
async function retrying<T>(
  attempt: () => Promise<T>,
  stillAlive: () => void,
  timeoutMs = 180_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    stillAlive();
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/** Throws when one of the services has exited. */
function servicesAlive(children: Map<ServiceName, ChildProcess>): () => void {
  return () => {
    for (const [name, child] of children) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the ${name} service exited (${child.exitCode ?? child.signalCode})`);
    }
  };
}

/**
 * Registers `namespace` (again, on a second start) with the project's search attributes, and waits until a
 * workflow can start and be terminated there: the frontend answers before history and matching have joined its
 * membership ring.
 */
async function prepareNamespace(address: string, namespace: string, stillAlive: () => void): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await connection.workflowService
      .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') })
      .catch((error: unknown) => {
        if (!isGrpcServiceError(error) || error.code !== GRPC_ALREADY_EXISTS) throw error;
      });
    await retrying(
      () => connection.workflowService.listWorkflowExecutions({ namespace, pageSize: 1 }),
      stillAlive,
    );
    await retrying(() => ensureSearchAttributes(connection, namespace), stillAlive);
    const client = new Client({ connection, namespace });
    let probe = 0;
    await retrying(async () => {
      const handle = await client.workflow.start('clusterReadyProbe', {
        taskQueue: 'cluster-ready-probe',
        workflowId: `cluster-ready-probe-${++probe}`,
      });
      await handle.terminate('the cluster is ready');
    }, stillAlive);
  } finally {
    await connection.close();
  }
}

async function startServices(
  server: string,
  dir: string,
  postgres: Postgres,
  dynamicConfigFile: string,
  children: Map<ServiceName, ChildProcess>,
): Promise<{ address: string; services: TemporalCluster['services'] }> {
  const ports = {} as Record<ServiceName, Ports>;
  for (const name of SERVICES) ports[name] = { grpc: await freePort(), membership: await freePort() };
  const services = {} as TemporalCluster['services'];
  const start = (name: ServiceName) => {
    const configDir = join(dir, name);
    mkdirSync(configDir, { recursive: true });
    const logFile = join(configDir, `${name}.log`);
    const config = serviceConfig(ports, postgres, logFile, dynamicConfigFile);
    writeFileSync(join(configDir, 'cluster.yaml'), JSON.stringify(config, null, 2));
    const child = startService(server, name, configDir, join(configDir, 'stdout.log'));
    children.set(name, child);
    services[name] = { pid: child.pid as number, configDir, logFile };
  };
  // The frontend first, alone: every service writes the cluster's metadata record when it starts, and on a fresh
  // database the ones that lose that race exit ("failed to initialize current cluster metadata"). Once the
  // frontend answers, the record exists and the others only read it.
  start('frontend');
  const address = `127.0.0.1:${ports.frontend.grpc}`;
  try {
    await waitForServer(address, services.frontend.pid, 120_000);
  } catch (error) {
    throw new Error(
      `the cluster's frontend did not come up: ${(error as Error).message}\n${logTail(services.frontend)}`,
      { cause: error },
    );
  }
  for (const name of SERVICES) if (name !== 'frontend') start(name);
  return { address, services };
}

/** The last lines a service wrote (its stdout and its log file), for an error that must explain a failed start. */
function logTail(service: { configDir: string; logFile: string }): string {
  const lines = [join(service.configDir, 'stdout.log'), service.logFile].flatMap((file) =>
    existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').slice(-8) : [],
  );
  return lines.join('\n') || '(nothing written)';
}

/** PostgreSQL, the schema, the four services and the `default` namespace with the project's search attributes. */
export async function startTemporalCluster(
  dir: string,
  options: { onProgress?: (line: string) => void } = {},
): Promise<TemporalCluster> {
  let resolved: ResolvedServer;
  try {
    resolved = await resolveTemporalServer(options.onProgress ? { onProgress: options.onProgress } : {});
  } catch (error) {
    throw new Error(`The cluster suite needs the Temporal server: ${(error as Error).message}`, {
      cause: error,
    });
  }
  mkdirSync(dir, { recursive: true });
  const postgres = await startPostgres(join(dir, 'postgres'));
  const children = new Map<ServiceName, ChildProcess>();
  const stopAll = async () => {
    await Promise.all([...children.values()].map(stopChild));
    await postgres.stop();
  };
  try {
    await createSchemas(resolved.sqlTool, postgres);
    const dynamicConfigFile = join(dir, 'dynamicconfig.yaml');
    writeFileSync(dynamicConfigFile, DYNAMIC_CONFIG);
    // One more start on fresh ports if a service dies during start-up or the services never form one ring (the
    // frontend answering "Not enough hosts to serve the request" for minutes): the error then carries every
    // service's log tail.
    const namespace = 'default';
    let started: { address: string; services: TemporalCluster['services'] } | undefined;
    for (let attempt = 1; !started; attempt++) {
      try {
        const up = await startServices(resolved.server, dir, postgres, dynamicConfigFile, children);
        try {
          await prepareNamespace(up.address, namespace, servicesAlive(children));
        } catch (error) {
          const tails = SERVICES.map((name) => `--- ${name}:\n${logTail(up.services[name])}`).join('\n');
          throw new Error(`the cluster did not become ready: ${(error as Error).message}\n${tails}`, {
            cause: error,
          });
        }
        started = up;
      } catch (error) {
        await Promise.all([...children.values()].map(stopChild));
        children.clear();
        if (attempt >= 2) throw error;
        // Said out loud, so a start that needed the second try is seen in the run's output.
        console.warn(
          `cluster start, attempt ${attempt} failed; trying once more: ${(error as Error).message}`,
        );
      }
    }
    const { address, services } = started;
    return {
      address,
      namespace,
      postgres,
      services,
      async restartService(name) {
        const child = children.get(name);
        if (child) await stopChild(child);
        const { configDir } = services[name];
        const next = startService(resolved.server, name, configDir, join(configDir, 'stdout.log'));
        children.set(name, next);
        services[name] = { ...services[name], pid: next.pid as number };
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll().catch(() => undefined);
    throw error;
  }
}
