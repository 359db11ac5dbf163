import type { TheLoopConfig } from '../config/schema';
import type { WorkItemChannel } from './channel';
import { SlackChannel } from './slack/slack-channel';

/**
 * The configured channel, or null: off when `slack` is not configured, and off (with one warning) when its bot
 * token is not in the environment. Every other feature works without it.
 */
export function channelFromConfig(
  config: TheLoopConfig,
  warn: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): WorkItemChannel | null {
  if (!config.slack) return null;
  const token = env[config.slack.botTokenEnv];
  if (!token) {
    warn(`slack: ${config.slack.botTokenEnv} is not set; the Slack thread is off`);
    return null;
  }
  return new SlackChannel({ token, channel: config.slack.channel, apiUrl: config.slack.apiUrl, warn });
}

/** The Events API signing secret, or null (the receiver then does not serve the Slack route). */
export function slackSigningSecret(
  config: TheLoopConfig,
  env: NodeJS.ProcessEnv = process.env,
): string | null {
  return config.slack ? env[config.slack.signingSecretEnv] || null : null;
}
