import { apiHandler } from '../../../shared/http/handler';
import { generateScript } from '../../../shared/platforms/api';

export const handler = apiHandler((request) => generateScript('cleanup', request), {
  bodyFormats: ['json', 'yaml'],
});
