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
