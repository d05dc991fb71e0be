import { apiHandler } from '../../../shared/edge/handler';
import { JSON_OR_YAML } from '../../../shared/edge/yaml';
import { generateScript } from '../../../shared/platforms/api';

export const handler = apiHandler((request) => generateScript('initial-create', request), {
  bodyFormats: JSON_OR_YAML,
});
