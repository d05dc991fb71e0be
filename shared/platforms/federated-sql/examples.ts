/** FederatedSql's example payloads (what tests build their cases from: ../examples.ts). */
import type { PlatformExamples } from '../examples';

export const examples: PlatformExamples = {
  body: () => ({ type: 'FederatedSql' }),
};
