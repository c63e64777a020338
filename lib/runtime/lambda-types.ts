// The AWS Lambda event shapes the handlers read, from @types/aws-lambda: API
// Gateway HTTP API payload v2, SQS, SNS. HTTP events are narrowed to the
// fields we read, so the local server and tests can build them by hand.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context, SNSEvent, SNSEventRecord, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

export type HttpEvent = Pick<APIGatewayProxyEventV2, 'rawPath' | 'headers'> &
  Partial<Pick<APIGatewayProxyEventV2, 'version' | 'rawQueryString' | 'isBase64Encoded'>> & {
    body?: string | null;
    requestContext?: { requestId?: string; http?: Partial<APIGatewayProxyEventV2['requestContext']['http']> };
  };
export type HttpResult = Pick<APIGatewayProxyStructuredResultV2, 'cookies'> & { statusCode: number; headers?: Record<string, string>; body: string };
/** What the handlers use of Lambda's context (the local server passes its own). */
export type LambdaContext = Partial<Pick<Context, 'awsRequestId' | 'getRemainingTimeInMillis'>>;
export type SqsRecord = SQSRecord;
export type SqsEvent = SQSEvent;
export type SqsBatchResponse = SQSBatchResponse;
export type SnsRecord = SNSEventRecord;
export type SnsEvent = SNSEvent;

export function header(event: HttpEvent, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(event.headers ?? {})) if (k.toLowerCase() === lower) return v;
  return undefined;
}

export function rawBody(event: HttpEvent): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

export function json(statusCode: number, body: unknown): HttpResult {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}
