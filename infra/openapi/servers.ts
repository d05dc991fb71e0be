/**
 * The document's `servers`: one entry per cataloged stage (cdk.json), so a reader sees where
 * each stage answers. A deployed stage's host is known only after deployment (the `ApiUrl`
 * output of its stack), so its entry is a URL template with variables; the served document also
 * puts the origin the request reached first (functions/service/openapi.ts).
 */
import type { ServerEntry } from '../../shared/openapi/document';
import { API_URL_OUTPUT, stackName } from '../outputs';
import { loadStages, type Stages } from '../stages';

/** The local cloud's default port (infra/local/main.ts; PORT overrides it). */
const LOCAL_PORT = '3000';

export function stageServers(stages: Stages = loadStages()): ServerEntry[] {
  return Object.entries(stages).map(
    ([name, stage]): ServerEntry =>
      stage.deploy
        ? {
            url: 'https://{apiId}.execute-api.{region}.amazonaws.com',
            description: `Stage ${name}: the ${API_URL_OUTPUT} output of stack ${stackName(name)} (its API id and region).`,
            variables: { apiId: { default: 'apiId' }, region: { default: 'us-east-1' } },
          }
        : {
            url: 'http://127.0.0.1:{port}',
            description: `Stage ${name}: the local cloud (npm start; PORT overrides the port).`,
            variables: { port: { default: LOCAL_PORT } },
          },
  );
}
