import { apiHandler } from '../../../shared/http/handler';
import { editScriptFor } from '../../../shared/platforms/api';

export const handler = apiHandler((request) => editScriptFor(request), { bodyFormats: ['json', 'yaml'] });
