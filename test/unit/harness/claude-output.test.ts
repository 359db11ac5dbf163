import {
  claudeErrorMessage,
  claudePermissionDenials,
  claudeUsage,
  parseClaudeStdout,
} from '../../../src/harness/claude-output';

/** Result lines printed by the real claude 2.1.197 against the mock API (trimmed of fields the parser ignores). */
const RECORDED = {
  apiError:
    '{"type":"result","subtype":"success","is_error":true,"api_error_status":403,"duration_ms":696,"num_turns":1,"result":"Failed to authenticate. API Error: 403 Forbidden: org disabled","session_id":"066ea2b6-2f42-47c4-8ef5-5007ed6749a2","total_cost_usd":0,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0},"modelUsage":{},"permission_denials":[]}',
  budget:
    '{"type":"result","subtype":"error_max_budget_usd","duration_ms":364,"is_error":true,"num_turns":1,"session_id":"ab32a9c2-68c0-4202-9ef4-1e7387f82c3c","total_cost_usd":0.30000000000000004,"usage":{"input_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":0},"modelUsage":{"claude-opus-4-8[1m]":{"inputTokens":20000,"outputTokens":8000,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":0.30000000000000004}},"permission_denials":[],"errors":["Reached maximum budget ($0.25)"]}',
  denied:
    '{"type":"result","subtype":"success","is_error":false,"api_error_status":null,"num_turns":4,"result":"wrote2","session_id":"47348b93-a947-41fa-80a8-7f2c677169b1","total_cost_usd":0.002,"usage":{"input_tokens":200,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":40},"modelUsage":{"claude-opus-4-8[1m]":{"inputTokens":200,"outputTokens":40,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":0.002}},"permission_denials":[{"tool_name":"Write","tool_use_id":"toolu_1","tool_input":{}},{"tool_name":"Bash","tool_use_id":"toolu_2","tool_input":{}}]}',
};

function parse(line: string) {
  const parsed = parseClaudeStdout(line);
  if (!parsed) throw new Error('did not parse');
  return parsed;
}

test('an API error reads as the status and the message, not as "success"', () => {
  expect(claudeErrorMessage('claude', parse(RECORDED.apiError))).toBe(
    'claude: the model API answered 403: Failed to authenticate. API Error: 403 Forbidden: org disabled',
  );
});

test('a budget stop: tokens from modelUsage, the real cost, the reason from errors', () => {
  const result = parse(RECORDED.budget);
  expect(claudeUsage(result, 1)).toMatchObject({ input_tokens: 20000, output_tokens: 8000 });
  expect(claudeUsage(result, 1).cost_usd).toBeCloseTo(0.3, 6);
  expect(claudeErrorMessage('claude', result)).toBe(
    'claude stopped at its budget (--max-budget-usd) after the turn cost $0.30: Reached maximum budget ($0.25)',
  );
});

test('permission denials: count, tool names, and whether every tool call was refused', () => {
  // 3 tool calls (num_turns 4), 2 refused
  expect(claudePermissionDenials(parse(RECORDED.denied))).toEqual({
    count: 2,
    tools: ['Write', 'Bash'],
    all: false,
  });
  const allDenied = parse(RECORDED.denied.replace('"num_turns":4', '"num_turns":3'));
  expect(claudePermissionDenials(allDenied)?.all).toBe(true);
  expect(claudePermissionDenials(parse(RECORDED.apiError))).toBeNull();
});
