/**
 * The remote progress of the operation in flight: the steps it carried out or undid, and why its
 * remote work failed. Every write is conditional on the integration still belonging to the request.
 */
import { tableName } from '../../store/tables';
import { conditionalUpdate } from '../../store/write';

/** The attributes of an operation's remote progress; a newly accepted request clears them. */
export const PROGRESS_ATTRIBUTES = ['appliedSteps', 'undoneSteps', 'remoteFailure'] as const;

/**
 * Appends steps to the request's progress list in one write (a step and the steps removed with
 * it are recorded together or not at all), only while the integration still belongs to the
 * request (false otherwise: the caller's work is stale and must stop).
 */
export async function recordStep(
  id: number,
  requestId: string,
  list: 'appliedSteps' | 'undoneSteps',
  steps: readonly string[],
): Promise<boolean> {
  return conditionalUpdate({
    TableName: tableName('integrations'),
    Key: { id },
    UpdateExpression: 'SET #l = list_append(if_not_exists(#l, :empty), :step)',
    ConditionExpression: '#r = :r',
    ExpressionAttributeNames: { '#l': list, '#r': 'requestId' },
    ExpressionAttributeValues: { ':empty': [], ':step': [...steps], ':r': requestId },
  });
}

/** Keeps why the request's remote work failed until its undo has run. */
export async function recordRemoteFailure(id: number, requestId: string, message: string): Promise<boolean> {
  return conditionalUpdate({
    TableName: tableName('integrations'),
    Key: { id },
    UpdateExpression: 'SET #f = :f',
    ConditionExpression: '#r = :r',
    ExpressionAttributeNames: { '#f': 'remoteFailure', '#r': 'requestId' },
    ExpressionAttributeValues: { ':f': message, ':r': requestId },
  });
}
