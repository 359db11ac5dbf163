/** Activities that touch a host's disk, processes or tmux run on that host's own queue. */
export function hostQueueName(taskQueue: string, hostId: string): string {
  return `${taskQueue}.host.${hostId}`;
}

/** The host id a host queue of this task queue names. */
export function hostIdOf(taskQueue: string, hostQueue: string): string {
  const prefix = `${taskQueue}.host.`;
  return hostQueue.startsWith(prefix) ? hostQueue.slice(prefix.length) : hostQueue;
}
