import type { Command } from 'commander';
import { RATE_LIMIT_LEVEL_NAMES } from './choices.ts';

const LEVELS = RATE_LIMIT_LEVEL_NAMES.join(', ');

/**
 * `earshot credentials create`: issue an API key (and OAuth2 client) for a user;
 * `earshot credentials level`: change the rate-limit level of an existing one;
 * `earshot credentials regenerate`: give one a new key. Keys are stored as digests: the full key is
 * printed once, by the command that makes it.
 */
export function register(program: Command): void {
  const credentials = program.command('credentials').description('manage API credentials');
  credentials
    .command('create')
    .description('create an API credential; its client secret is the API key (token=KEY)')
    .requiredOption('--user <name>', 'owner of the credential (created when unknown)')
    .requiredOption('--name <app>', 'application name')
    .option('--redirect-uri <uri>', 'OAuth2 redirect URI of the application')
    .option('--level <level>', `rate-limit level: ${LEVELS}`, 'standard')
    .option('--json', 'print the credential as JSON')
    .option('--over-limit', 'create it even when the user already has CREDENTIALS_PER_USER credentials')
    .action(
      async (options: {
        user: string;
        name: string;
        redirectUri?: string;
        level: string;
        json?: boolean;
        overLimit?: boolean;
      }) => {
        const [{ withCatalogue }, { createApiCredential }] = await Promise.all([
          import('./context.ts'),
          import('@earshot/services'),
        ]);
        await withCatalogue('credentials create', async (catalogue, { config }) => {
          const base = config.PUBLIC_URL?.replace(/\/+$/, '') ?? `http://${config.HOST}:${config.PORT}`;
          const created = await createApiCredential(catalogue.db, {
            username: options.user,
            name: options.name,
            redirectUri: options.redirectUri ?? `${base}/home/app_permissions/permission_granted/`,
            level: options.level,
            maxPerUser: options.overLimit ? undefined : config.CREDENTIALS_PER_USER,
          });
          if (options.json) {
            process.stdout.write(`${JSON.stringify(created)}\n`);
          } else {
            if (created.user_created) process.stdout.write(`created user ${created.username}\n`);
            process.stdout.write(
              `client_id:     ${created.client_id}\nclient_secret: ${created.client_secret}  (the API key: token=${created.client_secret}; shown this once)\nredirect_uri:  ${created.redirect_uri}\nlevel:         ${created.rate_limit_level}\n`,
            );
          }
        });
      },
    );
  credentials
    .command('regenerate')
    .description('give a credential a new API key (= client secret) and print it; the old key stops working')
    .argument('<client_id>', 'the credential')
    .action(async (clientId: string) => {
      const [{ withCatalogue }, { regenerateApiKeyOf }] = await Promise.all([
        import('./context.ts'),
        import('@earshot/services'),
      ]);
      await withCatalogue('credentials regenerate', async (catalogue) => {
        const made = await regenerateApiKeyOf(catalogue.db, clientId);
        process.stdout.write(
          `client_id:     ${made.client_id}\nclient_secret: ${made.client_secret}  (the API key: token=${made.client_secret}; shown this once)\n`,
        );
      });
    });
  credentials
    .command('level')
    .description(`set the rate-limit level of a credential (${LEVELS})`)
    .argument('<client_id>', 'the credential')
    .argument('<level>', 'the new level')
    .action(async (clientId: string, level: string) => {
      const [{ withCatalogue }, { setApiCredentialLevel }] = await Promise.all([
        import('./context.ts'),
        import('@earshot/services'),
      ]);
      await withCatalogue('credentials level', async (catalogue) => {
        const changed = await setApiCredentialLevel(catalogue.db, clientId, level);
        process.stdout.write(
          `${changed.client_id}: ${changed.previous} -> ${changed.rate_limit_level} (running servers apply it within 30 s)\n`,
        );
      });
    });
}
