import path from 'node:path';
import { z } from 'zod';

/**
 * Every environment variable earshot reads, validated once at start.
 * Add a variable here (and to the README's configuration table), never read process.env elsewhere.
 */
const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', ''])
  .transform((v) => v === '1' || v === 'true' || v === 'yes');

/**
 * TRUST_PROXY: how many reverse proxies stand in front of the API (the trusted hops of
 * X-Forwarded-For/Proto/Host). The yes/no values of earlier versions still mean 0 and 1.
 */
const proxyHops = z
  .string()
  .trim()
  .toLowerCase()
  .transform((v, ctx) => {
    if (v === '' || v === '0' || v === 'false' || v === 'no') return 0;
    if (v === 'true' || v === 'yes') return 1;
    if (/^[1-9]\d?$/.test(v)) return Number(v);
    ctx.addIssue({ code: 'custom', message: 'must be a number of proxies (0-99), true or false' });
    return z.NEVER;
  });

const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(
      z
        .string()
        .refine(
          (v) => {
            try {
              return protocols.includes(new URL(v).protocol);
            } catch {
              return false;
            }
          },
          `must be a URL with one of the protocols ${protocols.join(', ')}`,
        )
        .optional(),
    )
    .optional();

export const configSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().min(1).default('127.0.0.1'),
  API_PROCESSES: z.coerce.number().int().min(1).max(64).default(1),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:']),
  REDIS_URL: optionalUrl(['redis:', 'rediss:']),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  FFMPEG_PATH: z.string().min(1).optional(),
  FFPROBE_PATH: z.string().min(1).optional(),
  API_VARIANT: z.enum(['A', 'B']).default('B'),
  PUBLIC_URL: optionalUrl(['http:', 'https:']),
  ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    ),
  TRUST_PROXY: proxyHops.default(0),
  METRICS_TOKEN: z.string().min(16).optional(),
  OAUTH2_HTTPS_ONLY: bool.default(true),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  CLIP_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  CLIP_THREAD_NICENESS: z.coerce.number().int().min(0).max(19).optional(),
  DEMO_IMPORT: bool.default(true),
  SIGNUP_ENABLED: bool.default(false),
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  WEBHOOK_DISABLE_AFTER_HOURS: z.coerce
    .number()
    .min(0.01)
    .max(24 * 365)
    .default(72),
  EVENTS_RETENTION_DAYS: z.coerce.number().min(0.01).max(3650).default(30),
  WEBHOOK_LOG_RETENTION_DAYS: z.coerce.number().min(0.01).max(3650).default(14),
  EXPORT_SETTLE_MINUTES: z.coerce.number().min(0).default(10),
  EXPORT_MAX_AGE_HOURS: z.coerce.number().min(0).default(6),
  LIST_WALK_IDLE_MINUTES: z.coerce
    .number()
    .min(1)
    .max(7 * 24 * 60)
    .default(60),
  CREDENTIALS_PER_USER: z.coerce.number().int().min(1).default(20),
  UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(1024 ** 3),
  SEARCH_BUDGET_MS: z.coerce.number().int().min(0).default(4000),
  // Processing holds a sound's mono signal (10.6 MB a minute) and its analysis in memory, about
  // 30 MB a minute of sound in all, and a few kilobytes of compressed silence can hold hours: the
  // file size bounds nothing, the length does. 7 minutes keeps the longest sound within 256 MB.
  UPLOAD_MAX_SECONDS: z.coerce
    .number()
    .positive()
    .default(7 * 60),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000),
  IDLE_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
});

export type RawConfig = z.infer<typeof configSchema>;

export interface Config extends RawConfig {
  /** DATA_DIR resolved to an absolute path. */
  dataDir: string;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`Invalid environment variable ${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the environment. Throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined) input[key] = value;
  }
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue.path[0] ?? 'environment');
    throw new ConfigError(variable, `${issue.message} (got ${JSON.stringify(input[variable])})`);
  }
  return { ...parsed.data, dataDir: path.resolve(cwd, parsed.data.DATA_DIR) };
}

/** Human-readable table of the variables, used by `earshot --help` and checked against the README. */
export const configDocs: Record<keyof RawConfig, string> = {
  PORT: 'HTTP port of the API (default 8000)',
  HOST: 'interface the API binds to (default 127.0.0.1)',
  API_PROCESSES:
    'processes `earshot serve` serves HTTP with (default 1; more than 1 needs DATABASE_URL and REDIS_URL)',
  DATA_DIR: 'folder for the embedded database and the sound files (default ./data)',
  DATABASE_URL: 'PostgreSQL server URL; unset = embedded PGlite database in DATA_DIR',
  REDIS_URL:
    'Redis URL for the BullMQ job queue and the rate-limit counters; unset = in-process runner, counters in memory',
  LOG_LEVEL: 'pino log level (default info)',
  FFMPEG_PATH: 'ffmpeg binary; default: ffmpeg on PATH, else the npm @ffmpeg-installer binary',
  FFPROBE_PATH: 'ffprobe binary; default: ffprobe on PATH, else the npm @ffprobe-installer binary',
  API_VARIANT: 'B (default) or A: which variant of the version 2 API is served',
  PUBLIC_URL: 'absolute base URL used in links instead of the request origin',
  ALLOWED_HOSTS:
    'comma-separated host names (optionally host:port) whose Host header links may be built from when PUBLIC_URL is unset; localhost, 127.0.0.1, [::1] and HOST always are; any other Host gets links to the address the request arrived at',
  TRUST_PROXY:
    'number of reverse proxies in front of the API (default 0; true = 1): the client address, scheme and host are the ones the outermost of them forwarded (X-Forwarded-For/Proto/Host), never what the client sent before it',
  METRICS_TOKEN:
    'bearer token (16+ characters) that lets a scraper read /metrics from another host; unset = /metrics only from loopback',
  OAUTH2_HTTPS_ONLY:
    'refuse OAuth2, and passwords on the sign-in and sign-up pages, over plain http with a 403 (a browser on the machine itself excepted when no proxy is declared; default true; false only for local development, logged as a warning)',
  WORKER_CONCURRENCY: 'jobs run at once per worker process (default 1)',
  SEARCH_BUDGET_MS:
    'database time one search may spend, in ms (default 4000; 0 = no limit); past it the search is stopped and answered 409',
  CLIP_THREADS:
    "threads per API process analyzing audio_file clips (default: one per core but the event loop's, at least 2)",
  CLIP_THREAD_NICENESS:
    'Linux nice steps the clip threads run below the event loop, 0-19 (default 19: the event loop and the database preempt them)',
  DEMO_IMPORT:
    'import the demo fixtures on the first start with an empty data folder and make the demo user and its API key (default true; 0: no demo user, no key)',
  WEBHOOK_ALLOW_PRIVATE:
    'let webhooks deliver to loopback, private and link-local addresses (default false; for tests and a local receiver)',
  WEBHOOK_TIMEOUT_MS: 'how long a webhook receiver gets to answer one delivery, in ms (default 5000)',
  WEBHOOK_DISABLE_AFTER_HOURS:
    'a webhook whose every delivery attempt failed for this many hours is switched off until its owner switches it on (default 72)',
  EVENTS_RETENTION_DAYS:
    "events about users' sounds older than this are removed once every switched-on webhook delivered them; an event stream resumes within it (default 30)",
  WEBHOOK_LOG_RETENTION_DAYS: 'webhook delivery attempts older than this leave the delivery log (default 14)',
  EXPORT_SETTLE_MINUTES:
    'the bulk export (/apiv2/export/) is made again once the public catalogue changed and then had no change for this many minutes (default 10); needs PUBLIC_URL',
  EXPORT_MAX_AGE_HOURS:
    'while changes never settle, the export is made again once it is this many hours old (default 6); 0 turns the automatic export off',
  LIST_WALK_IDLE_MINUTES:
    "a cursor walk (cursor=*) is kept this many minutes after its latest page; the workers' upkeep removes it after that (default 60)",
  SIGNUP_ENABLED:
    'show the sign-up page at /apiv2/signup/ (default false: 404; users come from `earshot users create`)',
  CREDENTIALS_PER_USER:
    'most live API credentials one account may have (default 20): the credentials page and `earshot credentials create` refuse one more; the CLI may override with --over-limit',
  UPLOAD_MAX_BYTES:
    'largest audio file `POST /apiv2/sounds/upload/` accepts, in bytes (default 1073741824, 1 GiB)',
  UPLOAD_MAX_SECONDS:
    'longest sound taken, in seconds (default 420, 7 min): a longer upload is refused, a longer file fails processing; processing holds about 35 MB per minute of sound in memory',
  REQUEST_TIMEOUT_MS:
    'time an ordinary request (headers, and a body of at most 256 KB) may take to arrive, else 408 (default 120000); uploads are timed by IDLE_TIMEOUT_MS only',
  IDLE_TIMEOUT_MS:
    'a connection with a request under way that neither sends nor receives a byte this long is closed: a stalled upload or download (default 60000)',
};
