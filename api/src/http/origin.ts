import type { Context } from 'koa';

/**
 * The absolute origin every link starts with: PUBLIC_URL when the deployment sets one, else the
 * request's own scheme and host (Koa honours X-Forwarded-Proto/Host only when TRUST_PROXY is set).
 */
export function requestOrigin(ctx: Context, publicUrl: string | undefined): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  return `${ctx.protocol}://${ctx.host}`;
}
