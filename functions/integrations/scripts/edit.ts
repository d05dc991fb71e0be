import { apiHandler } from '../../../shared/edge/handler';
import { JSON_OR_YAML } from '../../../shared/edge/yaml';
import { editScriptFor } from '../../../shared/platforms/api';

export const handler = apiHandler((request) => editScriptFor(request), { bodyFormats: JSON_OR_YAML });
