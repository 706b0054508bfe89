import type { CategoryModel } from './category-model.ts';
import type { LabelledVector } from './types.ts';

export interface TrainRequest {
  examples: LabelledVector[];
}

export type TrainMessage =
  | { type: 'done'; model: CategoryModel | undefined }
  | { type: 'error'; message: string };
