// Every state change here is one DynamoDB conditional write; losing the
// condition is an answer (someone else got there first), not a fault.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/** true when the conditional write applied, false when its condition did not hold; any other error is thrown. */
export async function applied(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return false;
    throw err;
  }
}
