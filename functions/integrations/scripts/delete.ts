import { apiHandler } from '../../../shared/http/handler';
import { deleteScriptFor } from '../../../shared/platforms/api';

export const handler = apiHandler((request) => deleteScriptFor(request));
