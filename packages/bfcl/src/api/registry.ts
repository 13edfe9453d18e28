import type { BfclClassDefinition } from './bfcl-api';
import type { BfclClassName } from './bfcl-class-names';
import { gorillaFileSystemDefinition } from './gorilla-file-system';
import { mathApiDefinition } from './math-api';
import { messageApiDefinition } from './message-api';
import { twitterApiDefinition } from './twitter-api';
import { tradingBotDefinition } from './trading-bot';
import { travelApiDefinition } from './travel-api';
import { vehicleControlApiDefinition } from './vehicle-control-api';
import { ticketApiDefinition } from './ticket-api';

/** Every BFCL API class by its Python name. */
export const bfclClassRegistry: Readonly<
  Record<BfclClassName, BfclClassDefinition>
> = {
  GorillaFileSystem: gorillaFileSystemDefinition,
  MathAPI: mathApiDefinition,
  MessageAPI: messageApiDefinition,
  TwitterAPI: twitterApiDefinition,
  TicketAPI: ticketApiDefinition,
  TradingBot: tradingBotDefinition,
  TravelAPI: travelApiDefinition,
  VehicleControlAPI: vehicleControlApiDefinition,
};
