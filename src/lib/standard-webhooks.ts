// The Standard Webhooks signature, shared by the webhooks we send and the vendor webhooks we verify
// (Replicate's): HMAC-SHA256 over `{id}.{timestamp}.{body}`, keyed with the base64 part of a
// `whsec_<base64>` secret.
import { createHmac } from 'node:crypto';

/** The HMAC key of a `whsec_<base64>` secret (a bare base64 secret is taken as it is). */
export function standardWebhookKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** The raw HMAC of one webhook under `secret`. */
export function standardWebhookMac(secret: string, id: string, timestamp: string, body: string | Buffer): Buffer {
  return createHmac('sha256', standardWebhookKey(secret)).update(`${id}.${timestamp}.`).update(body).digest();
}

/** The `webhook-signature` value of one webhook: `v1,<base64 HMAC>`. */
export function signStandardWebhook(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${standardWebhookMac(secret, id, String(timestamp), body).toString('base64')}`;
}
