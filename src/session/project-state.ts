/** Seeded into project_state/README.md so every agent that opens the directory sees who may write what. */
export const PROJECT_STATE_README = `# project_state

Durable markdown memory for the routines of this session. The loop coordinator never parses these
files; it only hands their paths to each iteration. Keep them short and current.

The goal lives in the session's goal.md (and in every prompt). Do not copy, paraphrase or restate it
here: a child session or a --goal-file override would make such a copy wrong.

## Who owns which file

- memory.md: only the durable facts a future iteration cannot cheaply rediscover (decisions that must
  not be revisited, credentials locations, gotchas). Not a diary.
- finished.md: append-only ledger of completed work that the outer loop has verified and accepted.
  Never edit or delete earlier entries. Each entry names the task, links the iteration directory and
  the harness output, and for code changes gives per repository: path or remote, branch, PR URL, merge
  status, merge commit when merged, and the state of checks/CI.
- eval_results.md: the detail of eval runs; summarize and link the reports under eval_results/
  instead of pasting raw output.
- current_state.md: live status only: what is true now, the latest eval headline, and the single next
  action. Overwrite it freely.
- user_requests.md: requests that arrived through updates_from_user.md, as the coordinating routine
  understood them. Reflect a request here (and into the plan) before clearing updates_from_user.md.

Other files (what_we_have.md, decisions.md, what_we_should_do/plan.md, ...) are welcome when a
routine needs them; say here what they hold if their purpose is not obvious from the name.
`;
