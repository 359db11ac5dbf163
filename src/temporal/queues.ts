import { hostname } from 'node:os';
import type { TheLoopConfig } from '../config/schema';

export function defaultHostId(config: TheLoopConfig): string {
  return config.worker.hostId ?? (hostname().replace(/[^A-Za-z0-9._-]/g, '-') || 'localhost');
}
