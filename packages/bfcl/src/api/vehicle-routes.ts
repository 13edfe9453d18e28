import type { PyValue } from '@seal/python';

/**
 * The zip codes `VehicleControlAPI.get_zipcode_based_on_city` knows, by exact
 * city name. Any other name gets `'00000'`.
 */
export const vehicleCityZipcodes: ReadonlyMap<string, string> = new Map([
  ['Rivermist', '83214'],
  ['Stonebrook', '74532'],
  ['Maplecrest', '56108'],
  ['Silverpine', '62947'],
  ['Shadowridge', '71354'],
  ['Sunset Valley', '83462'],
  ['Oakendale', '47329'],
  ['Willowbend', '52013'],
  ['Crescent Hollow', '69238'],
  ['Autumnville', '51479'],
  ['San Francisco', '94016'],
]);

/** Road distances in km between zip codes; each pair works in both directions. */
const routes: readonly (readonly [string, string, number])[] = [
  ['83214', '74532', 750.0],
  ['56108', '62947', 320.0],
  ['71354', '83462', 450.0],
  ['47329', '52013', 290.0],
  ['69238', '51479', 630.0],
  ['94016', '83214', 980.0],
  ['94016', '94704', 600.0],
  ['94704', '08540', 2550.0],
  ['94016', '08540', 1950.0],
  ['62947', '47329', 1053.0],
  ['94016', '62947', 780.0],
  ['74532', '94016', 880.0],
];

const routeIndex = new Map<string, number>();
for (const [a, b, km] of routes) {
  routeIndex.set(`${a}\u0000${b}`, km);
  routeIndex.set(`${b}\u0000${a}`, km);
}

/**
 * The distance (a Python float) between two zip codes as
 * `VehicleControlAPI.estimate_distance` knows it, or undefined for an unknown
 * pair. Only str arguments can match, as with Python's `==` on strings.
 */
export function vehicleRouteDistance(
  cityA: PyValue,
  cityB: PyValue,
): number | undefined {
  if (typeof cityA !== 'string' || typeof cityB !== 'string') return undefined;
  return routeIndex.get(`${cityA}\u0000${cityB}`);
}
