/**
 * Validation test names (the spec's where it shows one) and helpers to build results. Messages
 * are built from fixed text, names and reasons classified by the drivers — never from config
 * values that could be secrets, and never from raw driver errors.
 */
import type { ValidationTest } from './port';

export const TEST = {
  basicConnection: 'Initial Validation: Basic Connection Test',
  defaultWarehouse: 'Initial Validation: Default Warehouse Access Test',
  rolePrefixUnique: 'Initial Validation: Table Grants Role Prefix is Unique',
  privilegedRole: 'Initial Validation: Validate access to Privileged Role',
  databaseDoesNotExist: 'Validate Automatic: Database Does Not Exist',
  schemaDoesNotExist: 'Validate Automatic: Schema Does Not Exist',
  catalogDoesNotExist: 'Validate Automatic: Catalog Does Not Exist',
  impersonationRoleDoesNotExist: 'Validate Automatic: Impersonation Role Does Not Exist',
  setupObjectsDoNotExist: 'Validate Automatic: Setup Objects Do Not Exist',
  setupInPlace: 'Assurance: Setup Objects And Grants In Place',
  noUnplannedPrivileges: 'Assurance: No Unplanned Privileges',
  bootstrapUserGrants: 'Validate Automatic Bootstrap User Grants',
  manualSetup: 'Validate Manual: Setup Objects Exist',
  lakehouseBasicConnection: 'Basic Connection Test',
  metastore: 'Metastore validation',
  datasetAccess: 'Initial Validation: Metadata Dataset Access Test',
  accessGrantsLocation: 'Initial Validation: Access Grants Location Test',
} as const;

export const passed = (name: string, message?: string, result?: unknown[]): ValidationTest => ({
  name,
  status: 'passed',
  ...(message ? { message } : {}),
  ...(result ? { result } : {}),
});
export const failed = (name: string, message: string, result?: unknown[]): ValidationTest => ({
  name,
  status: 'failed',
  message,
  ...(result ? { result } : {}),
});
export const skipped = (name: string, message: string): ValidationTest => ({
  name,
  status: 'skipped',
  message,
});
export const warning = (name: string, message: string): ValidationTest => ({
  name,
  status: 'warning',
  message,
});

/** A session that can say which rights its user lacks for an automatic setup. */
export interface BootstrapRightsSession {
  /** Rights the session user lacks for automatic setup (empty when it may bootstrap). */
  missingBootstrapRights(): Promise<string[]>;
}

/**
 * `Validate Automatic Bootstrap User Grants`, for every type whose automatic setup needs rights
 * the user may lack: skipped for a manual setup (the operator runs the script with their own
 * rights) and when the connection test failed, else passed or failed naming the missing rights.
 */
export async function bootstrapRightsCheck(
  autoBootstrap: boolean,
  session: BootstrapRightsSession | undefined,
): Promise<ValidationTest[]> {
  const name = TEST.bootstrapUserGrants;
  if (!autoBootstrap)
    return [
      skipped(
        name,
        'not needed: with a manual setup the operator runs the setup script with their own rights',
      ),
    ];
  if (!session) return [skipped(name, 'skipped: the connection test failed')];
  const missing = await session.missingBootstrapRights();
  return [
    missing.length === 0
      ? passed(name)
      : failed(name, `the user lacks rights needed for automatic setup: ${missing.join(', ')}`),
  ];
}
