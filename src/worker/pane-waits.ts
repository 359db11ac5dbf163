import type { Client } from '@temporalio/client';
import type { PaneState } from '../work-item/host/pane-state';
import { paneWaitingSignal, type PaneWaiting, type PaneWaitReason } from '../workflows/work-item/messages';
import { workItemWorkflowId } from '../workflows/work-item/ids';
import type { PaneFiles } from './pane-files';

/** A permission prompt, a turn that stopped moving, or a question: asked in the reply, or another dialog. */
export const waitKind = (reason: NonNullable<PaneState['waiting']>['reason']): PaneWaitReason =>
  reason === 'permission' || reason === 'stuck' ? reason : 'question';

export interface PaneWaits {
  /** Tells the work item's workflow what its pane waits for now (null: nothing). Never rejects. */
  signalWaiting(workItem: string, waiting: PaneState['waiting']): Promise<void>;
  /** The pane's wait ends, when `which` it is: the workflow is told. False when no such wait was there. */
  endWait(
    workItem: string,
    which?: (waiting: NonNullable<PaneState['waiting']>) => boolean,
  ): Promise<boolean>;
}

/** A pane's waits for a person, as its state file keeps them and its workflow is told them. */
export function paneWaits(deps: { client: Client; files: PaneFiles; log(line: string): void }): PaneWaits {
  const { client, files, log } = deps;
  async function signalWaiting(workItem: string, waiting: PaneState['waiting']): Promise<void> {
    const signal: PaneWaiting = waiting
      ? {
          message: waiting.message,
          reason: waitKind(waiting.reason),
          ...(waiting.reason === 'question' ? { holdsDelivery: false } : {}),
        }
      : { message: null };
    try {
      await client.workflow.getHandle(workItemWorkflowId(workItem)).signal(paneWaitingSignal, signal);
    } catch (error) {
      log(`${workItem}: could not tell the workflow about the wait: ${(error as Error).message}`);
    }
  }

  async function endWait(
    workItem: string,
    which: (waiting: NonNullable<PaneState['waiting']>) => boolean = () => true,
  ): Promise<boolean> {
    const ended = await files.update(workItem, (state) => {
      if (state.waiting === null || !which(state.waiting)) return false;
      state.waiting = null;
      return true;
    });
    if (ended) await signalWaiting(workItem, null);
    return ended;
  }

  return { signalWaiting, endWait };
}
