/** Field schemas the type schemas share: hostnames, ports, secrets, identifiers, flags. */
import * as z from 'zod/mini';
import { described } from '../schema-meta';

const HOSTNAME =
  /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** A bare hostname (or IPv4 address): no scheme, port, path or credentials. */
export const hostname = () =>
  z.pipe(
    z
      .string()
      .check(
        z.trim(),
        z.minLength(1),
        z.maxLength(253),
        z.regex(HOSTNAME, 'must be a valid hostname (no scheme, port or path)'),
      ),
    z.transform((h) => h.toLowerCase()),
  );

export const port = (fallback: number) => z._default(z.int().check(z.gte(0), z.lte(65535)), fallback);

/** A required non-empty string with a sane upper bound (configs are small). */
export const text = (max = 1024) => z.string().check(z.minLength(1), z.maxLength(max));

/** A secret value: non-empty, bounded (a private key or service-account JSON fits in 16 KiB). */
export const secret = (max = 16_384) => z.string().check(z.minLength(1), z.maxLength(max));

/** A regular expression written without enclosing slashes; must compile. */
export const regexSource = (fallback: string) =>
  z._default(z.string().check(z.maxLength(1024)), fallback).check(
    z.refine(
      (source) => {
        try {
          new RegExp(source);
          return true;
        } catch {
          return false;
        }
      },
      { message: 'must be a valid regular expression (without enclosing slashes)' },
    ),
  );

export const enabledFlag = () =>
  z._default(z.strictObject({ enabled: described(z._default(z.boolean(), false), 'true turns it on') }), {
    enabled: false,
  });

/** Identifier-like names the service creates remotely (schemas, roles, catalogs). */
export const identifier = (max = 255) => z.string().check(z.minLength(1), z.maxLength(max));

/** The account a SQL integration connects as, and its password: one wording for every type. */
export const accountUsername = (max: number) =>
  described(text(max), 'the service account the integration connects as');
export const accountPassword = () => described(secret(1024), 'password of the service account (write-only)');

/**
 * The impersonation role the service may create to run queries on behalf of users (off by
 * default): the role name's length limit and default follow the platform's identifier rules.
 */
export const impersonation = (roleMax: number, defaultRole: string) =>
  described(
    z._default(
      z.strictObject({
        enabled: described(
          z._default(z.boolean(), false),
          'true: the service creates the impersonation role',
        ),
        role: described(z._default(identifier(roleMax), defaultRole), 'name of the impersonation role'),
      }),
      { enabled: false, role: defaultRole },
    ),
    'a role the service creates to run queries on behalf of users',
  );
