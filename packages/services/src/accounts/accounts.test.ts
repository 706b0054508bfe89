import { authenticateUser, findUserByName, UserExistsError } from '@earshot/catalogue';
import { openTestCatalogue, type TestCatalogue } from '@earshot/catalogue/testing';
import { ValidationError } from '@earshot/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from './accounts.ts';

describe('createUser (earshot users create, demo import)', () => {
  let test: TestCatalogue;
  beforeAll(async () => {
    test = await openTestCatalogue('pglite');
  });
  afterAll(() => test?.cleanup());

  it('stores roles and a password the catalogue can verify at sign-in', async () => {
    const id = await createUser(test.catalogue.db, {
      username: 'mod',
      email: 'mod@example.org',
      password: 's3cret pass',
      isModerator: true,
      isTrusted: true,
    });
    const user = await findUserByName(test.catalogue.db, 'MOD');
    expect(user).toMatchObject({ id, is_moderator: true, is_trusted: true });
    expect(await authenticateUser(test.catalogue.db, 'mod', 's3cret pass')).toMatchObject({ id });
    expect(await authenticateUser(test.catalogue.db, 'mod', 'wrong')).toBeFalsy();
  });

  it('refuses a taken name, a bad name and a bad email with messages a person understands', async () => {
    await expect(createUser(test.catalogue.db, { username: 'Mod' })).rejects.toBeInstanceOf(UserExistsError);
    await expect(createUser(test.catalogue.db, { username: 'has space' })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(createUser(test.catalogue.db, { username: 'x', email: 'nope' })).rejects.toThrow(
      /not an email address/,
    );
  });
});
