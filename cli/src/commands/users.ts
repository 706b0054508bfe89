import type { Command } from 'commander';

interface CreateOptions {
  email?: string;
  password?: string;
  moderator?: boolean;
  trusted?: boolean;
}

/** `earshot users create NAME …`: accounts for uploaders and moderators. */
export function register(program: Command): void {
  const users = program.command('users').description('manage user accounts');
  users
    .command('create')
    .description('create a user')
    .argument('<name>', 'username')
    .option('--email <email>', 'email address')
    .option('--password <password>', 'password (stored as an scrypt hash)')
    .option('--moderator', 'may approve and reject sounds')
    .option('--trusted', "the user's sounds skip moderation")
    .action(async (name: string, options: CreateOptions) => {
      const [{ withCatalogue }, { createUser }] = await Promise.all([
        import('./context.ts'),
        import('@earshot/services'),
      ]);
      await withCatalogue('users create', async (catalogue) => {
        const id = await createUser(catalogue.db, {
          username: name,
          email: options.email,
          password: options.password,
          isModerator: options.moderator,
          isTrusted: options.trusted,
        });
        const flags = [options.moderator && 'moderator', options.trusted && 'trusted'].filter(Boolean);
        process.stdout.write(
          `created user ${name} (id ${id}${flags.length ? `, ${flags.join(', ')}` : ''})\n`,
        );
      });
    });
}
