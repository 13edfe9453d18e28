/** The eight executable API classes of BFCL v3 multi-turn, by their Python names. */
export const bfclClassNames = [
  'GorillaFileSystem',
  'MathAPI',
  'MessageAPI',
  'TwitterAPI',
  'TicketAPI',
  'TradingBot',
  'TravelAPI',
  'VehicleControlAPI',
] as const;

/** One of {@link bfclClassNames}. */
export type BfclClassName = (typeof bfclClassNames)[number];

/** The function-doc file of each class in BFCL's `multi_turn_func_doc/` folder. */
export const bfclDocFiles: Record<BfclClassName, string> = {
  GorillaFileSystem: 'gorilla_file_system.json',
  MathAPI: 'math_api.json',
  MessageAPI: 'message_api.json',
  TwitterAPI: 'posting_api.json',
  TicketAPI: 'ticket_api.json',
  TradingBot: 'trading_bot.json',
  TravelAPI: 'travel_booking.json',
  VehicleControlAPI: 'vehicle_control.json',
};

/** True for a known class name. */
export function isBfclClassName(name: string): name is BfclClassName {
  return (bfclClassNames as readonly string[]).includes(name);
}
