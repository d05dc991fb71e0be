import * as z from 'zod/mini';
import { lazySchema } from '../lazy-schema';

export const APPLICATION_ADMIN = 'APPLICATION_ADMIN';

/**
 * Built on first use (ADR 0021): every API function decodes its caller with it, and building it
 * at module scope made it the function's first zod schema, at init.
 */
export const principalSchema = lazySchema(() =>
  z.object({
    userId: z.int().check(z.positive()),
    name: z.string().check(z.minLength(1), z.maxLength(200)),
    permissions: z.array(z.enum([APPLICATION_ADMIN])),
  }),
);
export type Principal = z.infer<ReturnType<typeof principalSchema>>;
export type Permission = Principal['permissions'][number];

export function isAdmin(principal: Pick<Principal, 'permissions'>): boolean {
  return principal.permissions.includes(APPLICATION_ADMIN);
}

/**
 * What the authorizer hands to every handler (API Gateway keeps context values as strings,
 * numbers or booleans, so permissions travel comma-joined).
 */
export interface AuthorizerContext {
  authenticated: boolean;
  userId?: number;
  name?: string;
  permissions?: string;
  /** Why authentication failed, for the handler's 401 message. */
  reason?: string;
}

export function contextFromPrincipal(principal: Principal): AuthorizerContext {
  return {
    authenticated: true,
    userId: principal.userId,
    name: principal.name,
    permissions: principal.permissions.join(','),
  };
}

export function principalFromContext(ctx: Partial<AuthorizerContext> | undefined): Principal | undefined {
  // Values arrive as strings when API Gateway serialises the context; accept both forms.
  const authenticated = ctx?.authenticated === true || String(ctx?.authenticated) === 'true';
  if (!ctx || !authenticated) return undefined;
  const parsed = principalSchema().safeParse({
    userId: Number(ctx.userId),
    name: ctx.name,
    permissions: (ctx.permissions ?? '').split(',').filter(Boolean),
  });
  return parsed.success ? parsed.data : undefined;
}
