// The slices of AWS Lambda event shapes the handlers read (API Gateway HTTP
// API payload v2, SQS, SNS). Declared here rather than pulling @types/aws-lambda.

export interface HttpEvent {
  version?: string;
  rawPath: string;
  rawQueryString?: string;
  headers: Record<string, string | undefined>;
  body?: string | null;
  isBase64Encoded?: boolean;
  requestContext?: { requestId?: string; http?: { method?: string; path?: string; sourceIp?: string } };
}

export interface HttpResult {
  statusCode: number;
  headers?: Record<string, string>;
  body: string;
}

export interface LambdaContext {
  awsRequestId?: string;
  getRemainingTimeInMillis?: () => number;
}

export interface SqsRecord {
  messageId: string;
  body: string;
  attributes?: Record<string, string>;
}
export interface SqsEvent {
  Records: SqsRecord[];
}
export interface SqsBatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
}

export interface SnsRecord {
  EventSource?: string;
  Sns: { MessageId?: string; TopicArn?: string; Subject?: string | null; Message: string; Timestamp?: string };
}
export interface SnsEvent {
  Records: SnsRecord[];
}

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
