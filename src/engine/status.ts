import { Type } from 'typebox';
import { Timestamp } from '../lib/schemas.ts';
import type { StatusRow } from './sql/history.ts';

export const StatusItem = Type.Object({
  id: Type.String(),
  type: Type.String({ examples: ['image'] }),
  status: Type.Enum(['QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED']),
  url: Type.Union([Type.String({ format: 'uri' }), Type.Null()], { description: 'Set once the item is COMPLETED' }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the item failed (what the vendor said, when a vendor did); null unless FAILED',
  }),
  progress: Type.Number({
    minimum: 0,
    maximum: 1,
    description: 'How far the work is, 0-1: 0 while QUEUED, what the vendor reports while PROCESSING, 1 once COMPLETED',
  }),
  queue_position: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: "The item's place in the vendor's queue while it waits there; null when unknown or finished",
  }),
  provider: Type.Union([Type.Literal('simulator'), Type.Null()], {
    description:
      "'simulator' when the service's built-in simulator made (or is making) this item in place of the model's " +
      "vendor: a stand-in file of the requested shape, not the model's output; null otherwise",
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const GenerationStatusRecord = Type.Object(
  {
    generation_id: Type.String(),
    status: Type.Enum(['queued', 'processing', 'completed', 'failed']),
    result_urls: Type.Array(Type.String({ format: 'uri' }), { description: 'Results of completed items' }),
    credits_used: Type.Number({ description: 'Net charge: what was charged minus refunds of failed items' }),
    total_items: Type.Integer(),
    completed_items: Type.Integer(),
    failed_items: Type.Integer(),
    expires_at: Type.Union([Timestamp, Type.Null()], {
      description:
        'When its result files are deleted (MEDIA_RETENTION_DAYS); after it their URLs answer 410. Null: kept',
    }),
    items: Type.Array(StatusItem),
  },
  { $id: 'GenerationStatus', title: 'GenerationStatus' },
);

export interface StatusRecord {
  generation_id: string;
  status: StatusRow['status'];
  result_urls: string[];
  credits_used: number;
  total_items: number;
  completed_items: number;
  failed_items: number;
  expires_at: string | null;
  items: StatusRow['items'];
}

/** The public status record of a generation row. */
export function toStatusRecord(row: StatusRow): StatusRecord {
  const resultUrls: string[] = [];
  for (const item of row.items) if (item.status === 'COMPLETED' && item.url) resultUrls.push(item.url);
  return {
    generation_id: row.id,
    status: row.status,
    result_urls: resultUrls,
    credits_used: row.credits_charged - row.credits_refunded,
    total_items: row.total_items,
    completed_items: row.completed_items,
    failed_items: row.failed_items,
    expires_at: row.expires_at,
    items: row.items,
  };
}
