import {
  allHandlersFinished,
  condition,
  continueAsNew,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import {
  answerPermissionUpdate,
  budgetRaisedSignal,
  closeUpdate,
  controlUpdate,
  deliverEventSignal,
  itemClosedSignal,
  linkPullRequestUpdate,
  openedUpdate,
  paneWaitingSignal,
  restartUpdate,
  statusQuery,
  type CloseReport,
  type CloseRequest,
  type WorkItemSessionInput,
} from './messages';
import { answerGateUpdate, nodeOutcomeUpdate } from './process-messages';
import { WorkItemSession } from './session';

export * from './messages';
export * from './process-messages';

/**
 * One work item ↔ one session: workflow id `work-item/<ref>`. Events are queued here and pasted into the tmux
 * pane by host activities, in order, one at a time. The queue, status and handlers are a WorkItemSession
 * (work-item/session.ts); this wires the messages (work-item/messages.ts) to it and runs the delivery loop.
 */
export async function workItemSession(input: WorkItemSessionInput): Promise<CloseReport | null> {
  const session = new WorkItemSession(input);
  setHandler(statusQuery, () => session.status());
  setHandler(deliverEventSignal, (event) => session.deliverEvent(event));
  setHandler(itemClosedSignal, (request) => session.itemClosed(request));
  setHandler(paneWaitingSignal, (waiting) => session.paneWaiting(waiting));
  setHandler(budgetRaisedSignal, () => session.budgetRaised());
  setHandler(answerPermissionUpdate, (answer) => session.answerPermission(answer), {
    validator: (answer) => session.validatePermissionAnswer(answer),
  });
  setHandler(openedUpdate, () => session.opened());
  setHandler(closeUpdate, (request) => session.close(request), {
    validator: (_request: CloseRequest) => session.validateClose(),
  });
  setHandler(controlUpdate, (request) => session.control(request), {
    validator: (request) => session.validateControl(request),
  });
  // updates that are one host operation each (their host side: src/work-item/host/verbs.ts)
  setHandler(linkPullRequestUpdate, (request) => session.onHost(linkPullRequestUpdate, request));
  setHandler(restartUpdate, (request) => session.onHost(restartUpdate, request));
  setHandler(answerGateUpdate, (answer) => session.process.answer(answer), {
    validator: (answer) => session.process.validateAnswer(answer),
  });
  setHandler(nodeOutcomeUpdate, (report) => session.process.outcome(report), {
    validator: (report) => session.process.validateOutcome(report),
  });

  if (!input.carried) await session.open();
  // beside the delivery loop, until the run ends
  void session.recordWaits();

  let closeReport: CloseReport | null;
  for (;;) {
    await condition(
      () =>
        session.closeRequested ||
        session.canDeliver() ||
        (workflowInfo().continueAsNewSuggested && session.idle),
    );
    if (session.closeRequested) {
      closeReport = await session.closed();
      if (closeReport) break;
      continue; // a failed close is reported to whoever asked; the session stays up
    }
    if (!session.canDeliver()) {
      // idle and the history is long: carry the state into a fresh run
      await condition(allHandlersFinished);
      if (session.closeRequested) continue;
      await continueAsNew<typeof workItemSession>({ ...input, registration: null, carried: session.carry() });
    }
    await session.deliverNext();
  }

  await condition(allHandlersFinished);
  return closeReport;
}
