// The audit log of approval requests, beside each request in its table:
//   pk = REQ#<id>, sk = AUDIT#<seq>      one audit record per transition
//   pk = REQ#<id>, sk = NOTE#<at>#<rnd>  refused actions (who tried what, why)
// A transition's event is first written into the request item (store.ts), in
// the same conditional write, then mirrored here with an attribute_not_exists
// put: idempotent, safe to repeat after a crash.

import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { applied } from './conditional.ts';
import { pkOf, queryPrefix } from './records.ts';
import type { ApprovalRequest, AuditEvent, Refusal } from './types.ts';

export interface RefusalNote {
  requestId: string;
  at: number;
  actor: string;
  action: string;
  refusal: Refusal;
}

export class AuditLog {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly retentionMs: number,
  ) {}

  /** Idempotent: the same (request, seq) is written once; repeating it is a no-op. */
  async put(event: AuditEvent): Promise<void> {
    await applied(
      this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: {
            ...event,
            pk: pkOf(event.requestId),
            sk: `AUDIT#${String(event.seq).padStart(6, '0')}`,
            recordType: 'audit',
            ttl: Math.floor((event.at + this.retentionMs) / 1000),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  /** Refused actions change nothing, so they get their own record instead of a version bump. */
  async putRefusal(note: RefusalNote): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.table,
        Item: {
          ...note,
          pk: pkOf(note.requestId),
          sk: `NOTE#${String(note.at).padStart(15, '0')}#${randomUUID().slice(0, 8)}`,
          recordType: 'refusal',
          ttl: Math.floor((note.at + this.retentionMs) / 1000),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  /** The audit trail as separate records, in order. */
  async trail(id: string): Promise<AuditEvent[]> {
    return (await queryPrefix(this.doc, this.table, id, 'AUDIT#')) as unknown as AuditEvent[];
  }

  async refusals(id: string): Promise<RefusalNote[]> {
    return (await queryPrefix(this.doc, this.table, id, 'NOTE#')) as unknown as RefusalNote[];
  }

  /**
   * Copies every event held in the request item to its AUDIT# record. Repairs
   * the mirror after a crash between a transition and its audit put.
   */
  async sync(request: ApprovalRequest): Promise<void> {
    for (const event of request.events) await this.put(event);
  }
}
