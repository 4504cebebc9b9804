// The name of each operation the service runs: what a plan records as its generation's
// `operation`, the key of the operation that runs its items, and what the history filters by.
// Written here once; everything else names them through these constants.

export const IMAGE_GENERATE = 'image.generate';
export const IMAGE_EDIT = 'image.edit';
export const IMAGE_FACE = 'image.face';
export const VIDEO_GENERATE = 'video.generate';
export const VIDEO_LIPSYNC = 'video.lipsync';
export const VIDEO_MOTION = 'video.motion';
export const VIDEO_REFERENCE = 'video.reference';
export const VIDEO_TALKING_HEAD = 'video.talking_head';
export const VIDEO_UPSCALE = 'video.upscale';
export const VIDEO_LORA = 'video.lora';
export const MUSIC_GENERATE = 'music.generate';
export const MODEL3D_GENERATE = 'model3d.generate';
export const TEXT_GENERATE = 'text.generate';
export const SPEECH_TTS = 'speech.tts';
export const VOICE_CREATE = 'voice.create';
export const INFLUENCER_TRAIN = 'influencer.train';
export const INFLUENCER_VIDEO = 'influencer.video';
