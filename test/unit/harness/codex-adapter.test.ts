import { getHarness } from '../../../src/harness';
import { codexEnv, realCodexBin, startMockOpenAI, type MockOpenAI } from '../../support/mock-openai';
import { makeFixture, type Fixture } from './harness-fixture';

/** The codex adapter running the REAL codex CLI against the mock Responses API. */
jest.setTimeout(120_000);
const codex = getHarness('codex');
let fx: Fixture;
let mock: MockOpenAI;
beforeAll(async () => {
  // every call refused, as the real API answers a wrong key
  mock = await startMockOpenAI({ respond: () => ({ failure: 'Incorrect API key provided', status: 401 }) });
});
afterAll(() => mock.close());
beforeEach(() => {
  fx = makeFixture();
});
afterEach(() => fx.cleanup());

test('a refused credential (401) fails the turn at the first refusal, naming the variable, not after five reconnects', async () => {
  // codex's own retries as a user has them: without the-loop it asks six times (five reconnects) before it fails
  const { env } = codexEnv(mock, { codexRetries: true });
  const result = await codex.run(
    fx.request({ env, options: { command: realCodexBin() }, timeoutMs: 90_000 }),
  );
  expect(result).toMatchObject({ success: false, aborted: false });
  expect(result.error).toBe(
    "codex: the model API refused the credential (401 Incorrect API key provided): check OPENAI_API_KEY (or the env_key of codex's model provider) in the harness's environment (harness.codex.env, env.file); the turn was stopped at the first refusal instead of retrying",
  );
  // stopped at codex's first reconnect: the refused call, and at most the reconnects under way when it was stopped
  const calls = mock.responseCalls().length;
  expect(calls).toBeGreaterThanOrEqual(1);
  expect(calls).toBeLessThan(6);
});
