import * as z from 'zod';
import { hostname, identifier, port, secret, text } from '../fields';

const ClusterIdpSchema = z.strictObject({
  username: text(128),
  password: secret(1024),
  appId: text(255),
  idpHost: hostname(),
  role: text(2048),
});

const base = {
  host: hostname(),
  database: identifier(127),
  initialDatabase: identifier(127).optional(),
  port: port(5439),
  impersonation: z
    .strictObject({
      enabled: z.boolean().default(false),
      role: identifier(127).default('service_impersonation'),
    })
    .default({ enabled: false, role: 'service_impersonation' }),
  connectArgs: z.string().max(2048).optional(),
};

const userPassword = {
  authenticationType: z.literal('userPassword'),
  username: text(128),
  password: secret(1024),
};
const accessKey = {
  authenticationType: z.literal('accessKey'),
  databaseUser: text(128),
  accessKeyId: text(128),
  secretKey: secret(1024),
  sessionToken: secret(4096).optional(),
};
const idp = { authenticationType: z.literal('idp'), idp: ClusterIdpSchema };

export const ClusterWarehouseConfigSchema = z.discriminatedUnion('authenticationType', [
  z.strictObject({ ...base, ...userPassword }),
  z.strictObject({ ...base, ...accessKey }),
  z.strictObject({ ...base, ...idp }),
]);
export type ClusterWarehouseConfig = z.infer<typeof ClusterWarehouseConfigSchema>;

/** Privileged credentials for deleting an automatically bootstrapped integration. */
export const ClusterWarehouseDeleteSchema = z.discriminatedUnion('authenticationType', [
  z.strictObject(userPassword),
  z.strictObject(accessKey),
  z.strictObject(idp),
]);
