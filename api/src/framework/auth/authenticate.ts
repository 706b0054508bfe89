import { NotAuthenticated } from './errors.ts';
import type { AuthRequest, AuthStrategy, Principal } from './principal.ts';

/** Runs the strategies in order; the first that recognizes the request decides. */
export async function authenticate(
  strategies: readonly AuthStrategy[],
  req: AuthRequest,
): Promise<Principal | null> {
  for (const strategy of strategies) {
    const principal = await strategy.authenticate(req);
    if (principal) return principal;
  }
  return null;
}

/**
 * Throws the contract's 401 when a resource that needs a credential got none; `challenge` says
 * which schemes the resource takes.
 */
export function requirePrincipal(principal: Principal | null, challenge?: string): Principal {
  if (!principal) throw new NotAuthenticated(challenge);
  return principal;
}
