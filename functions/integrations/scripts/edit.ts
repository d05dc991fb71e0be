import { apiHandler } from '../../../shared/http/handler';
import { JSON_OR_YAML } from '../../../shared/http/yaml';
import { editScriptFor } from '../../../shared/platforms/api';

export const handler = apiHandler((request) => editScriptFor(request), { bodyFormats: JSON_OR_YAML });
