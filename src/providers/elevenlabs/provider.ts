// The ElevenLabs provider: text to speech (client.ts), and voices cloned or designed there
// (voices.ts). Every call is synchronous: a submit answers the finished work, nothing is polled.
import { type Mapping, mappingFor } from '../mapping.ts';
import { type PollResult, type Provider, ProviderError, type SubmitRequest, type SubmitResult } from '../types.ts';
import { checkElevenLabs, type ElevenLabsSettings, speak, ttsInput } from './client.ts';
import { makeVoice, voiceInput } from './voices.ts';

/** The endpoints of voice routes; any other endpoint of an ElevenLabs route is a TTS model id. */
const VOICE_ENDPOINTS: ReadonlySet<string> = new Set(['voices/add', 'text-to-voice']);

/** ElevenLabs as a provider: speech and voices, each answered by its submit. */
export function createElevenLabsProvider(settings: ElevenLabsSettings): Provider {
  return {
    id: 'elevenlabs',
    // ElevenLabs takes no idempotency key: a submit whose outcome is unknown is not sent again.
    idempotentSubmit: false,

    submit(request: SubmitRequest): Promise<SubmitResult> {
      return VOICE_ENDPOINTS.has(request.endpoint) ? makeVoice(settings, request) : speak(settings, request);
    },

    async poll(): Promise<PollResult> {
      // Every submit answers with its work: no job of this vendor is ever left to poll.
      return {
        kind: 'failed',
        error: new ProviderError('synchronous vendor: nothing to poll', false, { kind: 'internal' }),
      };
    },

    check: () => checkElevenLabs(settings),
  };
}

/**
 * The mappings of ElevenLabs routes, by name: `tts`, a speech request as a text-to-speech call;
 * `clone` and `design`, a voice request as an instant clone or a voice design.
 */
export const ELEVENLABS_MAPPINGS: Record<string, Mapping> = {
  tts: mappingFor('speech', ttsInput),
  clone: mappingFor('voice', voiceInput),
  design: mappingFor('voice', voiceInput),
};
