import { openCatalogue } from '@earshot/catalogue';
import { createLogger, loadConfig } from '@earshot/common';
import { createApiCredential } from '@earshot/services';
import type { Command } from 'commander';

/** `earshot credentials create`: issue an API key (and OAuth2 client) for a user. */
export function register(program: Command): void {
  const credentials = program.command('credentials').description('manage API credentials');
  credentials
    .command('create')
    .description('create an API credential; its client secret is the API key (token=KEY)')
    .requiredOption('--user <name>', 'owner of the credential (created when unknown)')
    .requiredOption('--name <app>', 'application name')
    .option('--redirect-uri <uri>', 'OAuth2 redirect URI of the application')
    .option('--json', 'print the credential as JSON')
    .action(async (options: { user: string; name: string; redirectUri?: string; json?: boolean }) => {
      const config = loadConfig();
      const logger = createLogger(config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL);
      const base = config.PUBLIC_URL?.replace(/\/+$/, '') ?? `http://${config.HOST}:${config.PORT}`;
      const catalogue = await openCatalogue({
        config,
        logger,
        role: 'command',
        description: 'credentials create',
      });
      try {
        const created = await createApiCredential(catalogue.db, {
          username: options.user,
          name: options.name,
          redirectUri: options.redirectUri ?? `${base}/home/app_permissions/permission_granted/`,
        });
        if (options.json) {
          process.stdout.write(`${JSON.stringify(created)}\n`);
        } else {
          if (created.user_created) process.stdout.write(`created user ${created.username}\n`);
          process.stdout.write(
            `client_id:     ${created.client_id}\nclient_secret: ${created.client_secret}  (the API key: token=${created.client_secret})\nredirect_uri:  ${created.redirect_uri}\n`,
          );
        }
      } finally {
        await catalogue.close();
      }
    });
}
