// Import-free (types only) so that workflow code may use the built-in routine set directly.
import type { Routine } from './routine-schedule';

const CONTEXT = `You are one iteration of an unattended, long-running goal loop: session {session_id}, iteration {iteration}, routine "{routine_id}". Iterations before you left their work in files; iterations after you will rely on yours. Nothing you only say in your reply survives; write what matters to disk.

## Goal

{goal}

The canonical copy of the goal is {goal_file}. Do not copy or restate it into project_state/.

## Requests from the user since the session started

{user_updates}

These come from {updates_file} and take priority over any plan. When it is not empty: reflect each request into {project_state_dir}/user_requests.md (and into the plan or current_state.md where it changes what happens next), and only then empty {updates_file} (leave the file, with no content).

## Shared state: {project_state_dir}

Read its README.md first; it states who owns which file. In short: memory.md holds only essential durable facts; finished.md ({finished_file}) is an append-only ledger of completed work that a verifying iteration accepted; eval_results.md holds eval detail; current_state.md holds the live status, the latest eval headline and the single next action; user_requests.md holds the user's requests reflected from updates_from_user.md.

## Evals

Eval checks for this session live in {eval_checks_dir}. Run them with
  eval-banana run --cwd . --check-dir {eval_checks_dir} --output-dir {eval_results_dir}
(or, where eval-banana is not installed, \`loopy eval run\` with the same flags: a check is an executable, a *.sh script or a *.cmd file holding one shell command, and its exit status is its verdict)
Each run writes a report directory under {eval_results_dir}; summarize and link it from eval_results.md rather than pasting it.

## Your files

This iteration's directory is {iteration_dir}. Put logs and bulky artifacts under {harness_output_dir}.

## Stopping the loop

The loop keeps running until {control_file} says otherwise. To stop it (the goal is met, it cannot be met, or it needs a human decision) overwrite that file with exactly:
  {"state": "stopped", "reason": "<one line saying why>"}
Finishing one task is not a reason to stop.

## Child sessions

To hand a self-contained sub-goal to a separate session, write one new JSON file per request into {child_requests_dir}, for example {child_requests_dir}/add-login-tests.json:
  {"goal": "<the sub-goal, complete enough to act on without this session>", "max_iterations": 10}
Allowed keys: goal (required), max_iterations (integer >= 1), max_cost_usd (number > 0), harness ("claude", "cursor", "codex" or "command"), workflows (path of a routines YAML, relative to {session_dir}). No other keys; only files ending in .json are read. The loop dispatches children after this iteration, one at a time in file-name order, and this session waits until each has ended. A child's max_cost_usd is capped at what this session's budget has left, and everything it (and its own children) spends counts against this session. Its session appears under {children_dir}; children.json in {session_dir} records each request's status, outcome and cost, and the reason when a request was rejected. To ask for new work under a name you used before, write the file again after that child has finished; a request that was handled is not dispatched twice.
`;

const PLANNER = `${CONTEXT}
## Your task: plan

This is the first iteration. Survey the working directory and whatever project_state/ already holds. Then:
1. Create or refresh {project_state_dir}/README.md if it is missing the ownership rules above.
2. Write a concrete, ordered plan to {project_state_dir}/what_we_should_do/plan.md: small steps, each with how to verify it.
3. Write eval checks into {eval_checks_dir} for the goal's acceptance criteria where they can be automated.
4. Write current_state.md with the status and the single next action.
Do not start the implementation beyond what the plan needs to be credible.
End your reply with a two-line summary of the plan.
`;

const WORKER = `${CONTEXT}
## Your task: make progress

Read current_state.md and the plan. Do the single most valuable next step, completely: implement it, run the relevant tests and eval checks, and fix what they reveal. For code changes the default delivery is a branch, a pull request, passing checks and a merge, unless the work has no usable remote.
Then update current_state.md (status, latest eval headline, next action) and, if you learned a durable fact, memory.md. Do not append to finished.md: a verifying iteration does that.
End your reply with what you did and the evidence that it works.
`;

const GOAL_CHECK = `${CONTEXT}
## Your task: verify the goal

Judge, independently and skeptically, whether the goal is met. Run the eval checks in {eval_checks_dir} (add missing ones for acceptance criteria that can be checked), inspect the work itself, and do not take earlier iterations' claims on trust.
1. For each completed piece of work you verified, append an entry to {finished_file}: what was done, links to the iteration and harness output directories, and for code changes per repository the remote, branch, PR URL, merge status, merge commit and checks/CI status. Never edit earlier entries.
2. Summarize the eval run in eval_results.md and put its headline and the next action in current_state.md.
3. Write {goal_check_file} with exactly this shape:
  {"goal_met": false, "reason": "<what is met and what is missing>", "schema_version": 1}
4. goal_check.json is evidence only. If and only if the goal is met, also stop the loop by writing {control_file}:
  {"state": "stopped", "reason": "goal met: <one line>"}
End your reply with your verdict and its reason.
`;

/** Used when a session has no --workflows file: plan once, then work, verifying every third iteration. */
export const DEFAULT_ROUTINES: readonly Routine[] = [
  { id: 'planner', prompt: PLANNER, harness_options: {}, emits_goal_check: false, when: { first: true } },
  { id: 'worker', prompt: WORKER, harness_options: {}, emits_goal_check: false, when: { default: true } },
  { id: 'goal_check', prompt: GOAL_CHECK, harness_options: {}, emits_goal_check: true, when: { every: 3 } },
];
