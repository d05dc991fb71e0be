/**
 * The former name of `./internal-functions.ts`, kept only while `shared/platforms/remote.ts`
 * (held by the platform-module refactor of issue 19) still imports it; delete it when that
 * file imports `../store/internal-functions`.
 */
export { InternalInvocationError, invokeInternal } from './internal-functions';
