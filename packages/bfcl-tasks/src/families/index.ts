import type { TaskFamily } from '../task-family';
import {
  crossClassFamilies,
  heldOutCompositionFamilies,
} from './cross-class-families';
import { fileSystemFamilies } from './file-system-families';
import { mathFamilies } from './math-families';
import { messageFamilies } from './message-families';
import { ticketFamilies } from './ticket-families';
import { tradingFamilies } from './trading-families';
import { travelFamilies } from './travel-families';
import { twitterFamilies } from './twitter-families';
import { vehicleFamilies } from './vehicle-families';

/** Every task family, in-distribution ones first, in a fixed order. */
export const taskFamilies: readonly TaskFamily[] = [
  ...fileSystemFamilies,
  ...mathFamilies,
  ...messageFamilies,
  ...twitterFamilies,
  ...ticketFamilies,
  ...tradingFamilies,
  ...travelFamilies,
  ...vehicleFamilies,
  ...crossClassFamilies,
  ...heldOutCompositionFamilies,
];
