// Types for the undici modules `./undici-core.ts` loads by path, taken from undici's public
// declarations (the modules export exactly these values; the unit test checks it).
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';

  const agent: typeof Agent;
  export default agent;
}

declare module 'undici/lib/core/connect.js' {
  import type { buildConnector } from 'undici';

  const connect: typeof buildConnector;
  export default connect;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';

  const request: (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  export default request;
}
