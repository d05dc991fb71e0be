/** ObjectStore's example payloads (what tests build their cases from: ../examples.ts). */
import type { PlatformExamples } from '../examples';

export const examples: PlatformExamples = {
  body: (id) => ({
    type: 'ObjectStore',
    autoBootstrap: false,
    config: {
      name: `store-${id}`,
      cloudAccountId: '123456789012',
      cloudRegion: 'us-east-1',
      cloudLocationRole: 'arn:aws:iam::123456789012:role/grants',
      cloudLocationPath: `s3://bucket-${id}/data/`,
      authenticationType: 'accessKey',
      cloudAccessKeyId: `AKIA${id.toUpperCase()}`,
      cloudSecretAccessKey: `os-secret-${id}`,
    },
  }),
};
