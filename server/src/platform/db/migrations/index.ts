import type { Migration } from 'kysely';
import * as m0001 from './0001_platform';
import * as m0002 from './0002_api_keys';
import * as m0003 from './0003_rate_counters';
import * as m0004 from './0004_pay_webhooks';
import * as m0005 from './0005_connect';
import * as m0006 from './0006_x402';
import * as m0007 from './0007_rate_limits';
import * as m0008 from './0008_handle_index';
import * as m0009 from './0009_gate';
import * as m0010 from './0010_identity_events';
import * as m0011 from './0011_x402_settlements';
import * as m0012 from './0012_usage_history';
import * as m0015 from './0015_oidc';
import * as m0017 from './0017_request_log';
import * as m0018 from './0018_identity_handle_mint';
import * as m0019 from './0019_webhook_attempts';
import * as m0020 from './0020_webhook_watched_wallets';
import * as m0021 from './0021_oidc_login_claims';
import * as m0022 from './0022_rate_limits_last_counted';
import * as m0023 from './0023_oidc_payload_client';

/**
 * Every migration, in order. Names sort lexically and are applied in that order, so keep the 4-digit
 * prefix. To add one: create `000N_<what>.ts` exporting `up` (and `down`), import it here, add one line.
 * Never edit or rename a migration that has shipped; write a new one.
 */
export const migrations: Record<string, Migration> = {
  '0001_platform': m0001,
  '0002_api_keys': m0002,
  '0003_rate_counters': m0003,
  '0004_pay_webhooks': m0004,
  '0005_connect': m0005,
  '0006_x402': m0006,
  '0007_rate_limits': m0007,
  '0008_handle_index': m0008,
  '0009_gate': m0009,
  '0010_identity_events': m0010,
  '0011_x402_settlements': m0011,
  '0012_usage_history': m0012,
  '0015_oidc': m0015,
  '0017_request_log': m0017,
  '0018_identity_handle_mint': m0018,
  '0019_webhook_attempts': m0019,
  '0020_webhook_watched_wallets': m0020,
  '0021_oidc_login_claims': m0021,
  '0022_rate_limits_last_counted': m0022,
  '0023_oidc_payload_client': m0023,
};
