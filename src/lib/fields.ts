import { Type } from 'typebox';

// Field schemas shared by the request bodies of several modules.

/** An http(s) URL of a media file or webhook. */
export const Url = (description: string) =>
  Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, description });

export const Prompt = Type.String({ minLength: 1, maxLength: 4000 });

export const Webhook = Url('Receives a signed POST when the generation completes or fails');

/** The fields every asynchronous creation answers with. */
export const AsyncAccepted = {
  generation_id: Type.String(),
  status: Type.String({ examples: ['queued'] }),
  estimated_time: Type.Number({ description: 'Seconds' }),
};
