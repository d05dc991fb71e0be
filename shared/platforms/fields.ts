/** Field schemas the type schemas share: hostnames, ports, secrets, identifiers, flags. */
import * as z from 'zod';

const HOSTNAME =
  /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** A bare hostname (or IPv4 address): no scheme, port, path or credentials. */
export const hostname = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(253)
    .regex(HOSTNAME, 'must be a valid hostname (no scheme, port or path)')
    .transform((h) => h.toLowerCase());

export const port = (fallback: number) => z.number().int().min(0).max(65535).default(fallback);

/** A required non-empty string with a sane upper bound (configs are small). */
export const text = (max = 1024) => z.string().min(1).max(max);

/** A secret value: non-empty, bounded (a private key or service-account JSON fits in 16 KiB). */
export const secret = (max = 16_384) => z.string().min(1).max(max);

/** A regular expression written without enclosing slashes; must compile. */
export const regexSource = (fallback: string) =>
  z
    .string()
    .max(1024)
    .default(fallback)
    .refine(
      (source) => {
        try {
          new RegExp(source);
          return true;
        } catch {
          return false;
        }
      },
      { message: 'must be a valid regular expression (without enclosing slashes)' },
    );

export const enabledFlag = () =>
  z
    .strictObject({ enabled: z.boolean().default(false).describe('true turns it on') })
    .default({ enabled: false });

/** Identifier-like names the service creates remotely (schemas, roles, catalogs). */
export const identifier = (max = 255) => z.string().min(1).max(max);

/** The account a SQL integration connects as, and its password: one wording for every type. */
export const accountUsername = (max: number) =>
  text(max).describe('the service account the integration connects as');
export const accountPassword = () => secret(1024).describe('password of the service account (write-only)');
