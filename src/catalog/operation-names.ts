// The name of each operation the service runs: what a plan records as its generation's
// `operation`, the key of the operation that runs its items, and what the history filters by.
// Written here once; everything else names them through `OperationName`.

export const OperationName = {
  imageGenerate: 'image.generate',
  imageEdit: 'image.edit',
  imageFace: 'image.face',
  videoGenerate: 'video.generate',
  videoLipsync: 'video.lipsync',
  videoMotion: 'video.motion',
  videoReference: 'video.reference',
  videoTalkingHead: 'video.talking_head',
  videoUpscale: 'video.upscale',
  videoLora: 'video.lora',
  musicGenerate: 'music.generate',
  model3dGenerate: 'model3d.generate',
  textGenerate: 'text.generate',
  speechTts: 'speech.tts',
  voiceCreate: 'voice.create',
  influencerTrain: 'influencer.train',
  influencerVideo: 'influencer.video',
} as const;

/** One of the operation names. */
export type OperationName = (typeof OperationName)[keyof typeof OperationName];
