import type { Operation } from '../../engine/types.ts';
import type { TrainInput } from './inputs.ts';
import { setTrainingStatus } from './sql.ts';

/** Influencer training and videos. */
export const influencerOperations: Record<string, Operation> = {
  'influencer.train': {
    onCompleted: async (db, done) => {
      await setTrainingStatus(db, String((done.item.request as TrainInput).influencer_id), 'completed');
    },
    onFailed: async (db, item) => {
      await setTrainingStatus(db, String((item.request as TrainInput).influencer_id), 'failed');
    },
  },
  'influencer.video': {},
};
