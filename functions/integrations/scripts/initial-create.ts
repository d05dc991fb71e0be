import { apiHandler } from '../../../shared/http/handler';
import { JSON_OR_YAML } from '../../../shared/http/yaml';
import { generateScript } from '../../../shared/platforms/api';

export const handler = apiHandler((request) => generateScript('initial-create', request), {
  bodyFormats: JSON_OR_YAML,
});
