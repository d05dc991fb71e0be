import { apiHandler } from '../../../shared/edge/handler';
import { deleteScriptFor } from '../../../shared/platforms/api';

export const handler = apiHandler((request) => deleteScriptFor(request));
