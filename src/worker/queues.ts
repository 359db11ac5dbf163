import { hostname } from 'node:os';
import type { TheLoopConfig } from '../config/schema';

export function defaultHostId(config: TheLoopConfig): string {
  return config.worker.hostId ?? (hostname().replace(/[^A-Za-z0-9._-]/g, '-') || 'localhost');
}

/** Activities that touch a host's disk, processes or tmux run on that host's own queue. */
export function hostQueueName(taskQueue: string, hostId: string): string {
  return `${taskQueue}.host.${hostId}`;
}
