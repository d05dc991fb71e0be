import { type TableName, tableEnvVar } from '../catalog/tables';
import { requireEnv } from '../config/env';

/** The physical name of a cataloged table, from the env var the CDK wrapper / local cloud sets. */
export function tableName(name: TableName): string {
  return requireEnv(tableEnvVar(name));
}
