import { apiHandler } from '../../../shared/http/handler';
import { generateScript } from '../../../shared/platforms/api';

export const handler = apiHandler((request) => generateScript('initial-create', request), {
  bodyFormats: ['json', 'yaml'],
});
