/**
 * AWS SDK clients, built once per container at module scope. Endpoints come from the standard
 * `AWS_ENDPOINT_URL_<SERVICE>` variables, which the local cloud sets to its emulators; in AWS
 * they are unset and the SDK uses the regional endpoints.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { withoutSdkLogging } from '../config/sdk-clients';

export const dynamodb = withoutSdkLogging(new DynamoDBClient({}));

export const documentClient = DynamoDBDocumentClient.from(dynamodb, {
  marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  unmarshallOptions: { wrapNumbers: false },
});
