// The prices of what the catalog's lists do not price in an entry's `price`: the models endpoints
// name themselves (motion control, the LoRA video model, influencer images, training and videos,
// text to speech, voice clones and designs) and the provider family of video models (priced by
// quality). Each is a price object like a catalog entry's, with its schema, so the operator can
// override it live as any model's (PATCH /admin/v1/models/{kind}/{model}), by the model list's
// kind and id. The endpoints charge with these objects (or the operator's in their place).
import { type Static, type TSchema, Type } from 'typebox';

/** Credits per second (or per unit of a rate): any positive number, a total rounds up. */
const Rate = Type.Number({ exclusiveMinimum: 0 });
/** Credits of one item (an image, a voice, a speech): a whole number. */
const Whole = Type.Integer({ minimum: 1 });

/** The provider family of video models: credits per second, by settings.quality. */
export const FAMILY_PRICE_SCHEMA = Type.Object({
  credits_per_second_by_quality: Type.Object({ basic: Rate, high: Rate }),
});
export type FamilyPrice = Static<typeof FAMILY_PRICE_SCHEMA>;
export const FAMILY_PRICE: FamilyPrice = { credits_per_second_by_quality: { basic: 40, high: 90 } };

const MotionPrice = Type.Object({ credits_per_second: Rate });
const LoraVideoPrice = Type.Object({
  credits_per_second_by_resolution: Type.Object({ '480p': Rate, '580p': Rate, '720p': Rate }),
});
const InfluencerPrice = Type.Object({
  credits_per_image: Whole,
  credits_per_lora_image: Whole,
  credits_per_training: Whole,
});
const InfluencerVideoPrice = Type.Object({ credits_per_second: Rate });
const SpeechPrice = Type.Object({ credits_per_generation: Whole });
const VoicePrice = Type.Object({ credits_per_voice: Whole });

export type MotionPrice = Static<typeof MotionPrice>;
export type LoraVideoPrice = Static<typeof LoraVideoPrice>;
export type InfluencerPrice = Static<typeof InfluencerPrice>;
export type InfluencerVideoPrice = Static<typeof InfluencerVideoPrice>;
export type SpeechPrice = Static<typeof SpeechPrice>;
export type VoicePrice = Static<typeof VoicePrice>;

/** The ids the model list gives these models (kind:id). */
export const ENDPOINT_PRICED = {
  influencer: { kind: 'image', model: 'influencer-v1' },
  motion: { kind: 'video', model: 'kling-2.6-motion-control' },
  loraVideo: { kind: 'video', model: 'wan-2.2-lora' },
  influencerVideo: { kind: 'video', model: 'influencer-video' },
  speech: { kind: 'voice', model: 'tts' },
  voiceClone: { kind: 'voice', model: 'voice-clone-v1' },
  voiceDesign: { kind: 'voice', model: 'voice-design-v1' },
} as const;

export const MOTION_PRICE: MotionPrice = { credits_per_second: 14 };
export const LORA_VIDEO_PRICE: LoraVideoPrice = {
  credits_per_second_by_resolution: { '480p': 6, '580p': 8, '720p': 12 },
};
export const INFLUENCER_PRICE: InfluencerPrice = {
  credits_per_image: 8,
  credits_per_lora_image: 12,
  credits_per_training: 250,
};
export const INFLUENCER_VIDEO_PRICE: InfluencerVideoPrice = { credits_per_second: 30 };
export const SPEECH_PRICE: SpeechPrice = { credits_per_generation: 25 };
export const VOICE_CLONE_PRICE: VoicePrice = { credits_per_voice: 100 };
export const VOICE_DESIGN_PRICE: VoicePrice = { credits_per_voice: 50 };

/** Each endpoint-priced model (by `kind:model`): its price object and the schema an override must meet. */
export const ENDPOINT_PRICES: Readonly<Record<string, { schema: TSchema; price: Record<string, unknown> }>> = {
  [key(ENDPOINT_PRICED.influencer)]: { schema: InfluencerPrice, price: INFLUENCER_PRICE },
  [key(ENDPOINT_PRICED.motion)]: { schema: MotionPrice, price: MOTION_PRICE },
  [key(ENDPOINT_PRICED.loraVideo)]: { schema: LoraVideoPrice, price: LORA_VIDEO_PRICE },
  [key(ENDPOINT_PRICED.influencerVideo)]: { schema: InfluencerVideoPrice, price: INFLUENCER_VIDEO_PRICE },
  [key(ENDPOINT_PRICED.speech)]: { schema: SpeechPrice, price: SPEECH_PRICE },
  [key(ENDPOINT_PRICED.voiceClone)]: { schema: VoicePrice, price: VOICE_CLONE_PRICE },
  [key(ENDPOINT_PRICED.voiceDesign)]: { schema: VoicePrice, price: VOICE_DESIGN_PRICE },
};

function key(m: { kind: string; model: string }): string {
  return `${m.kind}:${m.model}`;
}

/** Credits for `units` at `rate` a unit: rounded up to a whole credit, at least 1. */
export const creditsFor = (rate: number, units: number) => Math.max(1, Math.ceil(rate * units));
