// The normalised request of text generation, as its plan stores it and as whatever serves it
// reads it: the model's price comes along, so the answer is settled to the tokens really used.
import { type Static, Type } from 'typebox';

export const TextInput = Type.Object({
  prompt: Type.String(),
  system_prompt: Type.Union([Type.String(), Type.Null()]),
  temperature: Type.Number(),
  max_tokens: Type.Integer(),
  price: Type.Object({ input_per_1k: Type.Number(), output_per_1k: Type.Number() }),
  /** The team's price multiplier when the request was accepted (absent: 1); the settled cost is scaled by it. */
  price_multiplier: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  /** An OpenAI chat request's own fields (the door's, or the native `chat`), for an OpenAI-compatible route. */
  chat: Type.Optional(
    Type.Object(
      { messages: Type.Array(Type.Record(Type.String(), Type.Unknown())), n: Type.Optional(Type.Integer()) },
      { additionalProperties: true },
    ),
  ),
});
export type TextInput = Static<typeof TextInput>;
