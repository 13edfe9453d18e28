/**
 * The fixed tables behind BFCL's `TravelAPI` (gorilla `cd9429cc`): flight
 * routes with their base fares, the airport list, the city → airport map and
 * the exchange rates. Only the values come from BFCL; the layout is ours.
 */

/**
 * Base fares in USD, one line per run of routes that share an origin:
 * `ORIGIN DEST=fare DEST=fare ...`. Line order and order within a line are
 * the order of BFCL's route table, which long-context `get_flight_cost`
 * exposes (it returns every route's fare in that order). `OKD` appears twice
 * because its route to `LAX` sits at the very end of BFCL's table.
 */
const routeLines = `
SFO LAX=200 JFK=500 ORD=400 BOS=450 RMS=300 SBK=350 MPC=370 SVP=320 SHD=330 SSV=340 OKD=360 WLB=310 CRH=380 ATV=390 PHV=420 GFD=430 CIA=700
LAX SFO=100 JFK=600 ORD=500 BOS=550 RMS=310 SBK=320 MPC=330 SVP=340 SHD=350 SSV=360 OKD=370 WLB=380 CRH=390 ATV=400 PHV=410 GFD=420 HND=430
JFK ORD=300 BOS=250 RMS=450 SBK=460 MPC=470 SVP=480 SHD=490 SSV=500 OKD=510 WLB=520 CRH=530 ATV=540 PHV=550 GFD=560 LAX=570 HND=800 PVG=950 PEK=1000
ORD LAX=180 BOS=200 RMS=350 SBK=360 MPC=370 SVP=380 SHD=390 SSV=400 OKD=410 WLB=420 CRH=430 ATV=440 PHV=450 GFD=460
BOS RMS=400 SBK=410 MPC=420 SVP=430 SHD=440 SSV=450 OKD=460 WLB=470 CRH=480 ATV=490 PHV=500 GFD=510
RMS BOS=200 JFK=210 SBK=220 MPC=230 SVP=240 SHD=250 SSV=260 OKD=270 WLB=280 CRH=290 ATV=300 PHV=310 GFD=320 LAX=330
SBK MPC=200 SVP=210 SHD=220 SSV=230 OKD=240 WLB=250 CRH=260 ATV=270 PHV=280 GFD=290
MPC SVP=210 SHD=220 SSV=230 OKD=240 WLB=250 CRH=260 ATV=270 PHV=280 GFD=290
SVP SHD=230 SSV=240 OKD=250 WLB=260 CRH=270 ATV=280 PHV=290 GFD=300
SHD SSV=220 OKD=230 WLB=240 CRH=250 ATV=260 PHV=270 GFD=280
SSV OKD=240 WLB=250 CRH=260 ATV=270 PHV=280 GFD=290
OKD WLB=230 CRH=240 ATV=250 PHV=260 GFD=270
WLB CRH=250 ATV=260 PHV=270 GFD=280
CRH ATV=240 PHV=250 GFD=260 SFO=270 RMS=280 HKG=290 JFK=300
ATV PHV=230 GFD=240
PHV GFD=220
LHR CDG=100
OKD LAX=220
`;

/** One flight route and its base fare (USD, economy, odd digit-sum date). */
export type TravelRoute = {
  /** Departure airport code. */
  readonly from: string;
  /** Arrival airport code. */
  readonly to: string;
  /** Base fare; an integer, as in BFCL. */
  readonly baseCost: number;
};

function parseRoutes(text: string): TravelRoute[] {
  const routes: TravelRoute[] = [];
  for (const line of text.trim().split('\n')) {
    const [from, ...legs] = line.trim().split(/\s+/);
    for (const leg of legs) {
      const [to, cost] = leg.split('=');
      routes.push({ from: from!, to: to!, baseCost: Number(cost) });
    }
  }
  return routes;
}

/** Every route, in BFCL's table order (153 routes). */
export const travelRoutes: readonly TravelRoute[] = parseRoutes(routeLines);

/** Base fare by `FROM|TO`. */
export const travelRouteCosts: ReadonlyMap<string, number> = new Map(
  travelRoutes.map((route) => [`${route.from}|${route.to}`, route.baseCost]),
);

/** `list_all_airports()`, in BFCL's order. */
export const travelAirports: readonly string[] = [
  'RMS',
  'SBK',
  'MPC',
  'SVP',
  'SHD',
  'CDG',
  'LHR',
  'SSV',
  'OKD',
  'WLB',
  'PEK',
  'HND',
  'HKG',
  'CIA',
  'CRH',
  'ATV',
  'PHV',
  'GFD',
  'SFO',
  'LAX',
  'JFK',
  'ORD',
  'BOS',
];

/** `get_nearest_airport_by_city`: city name → airport code. */
export const travelCityAirports: ReadonlyMap<string, string> = new Map([
  ['Rivermist', 'RMS'],
  ['Stonebrook', 'SBK'],
  ['Maplecrest', 'MPC'],
  ['Silverpine', 'SVP'],
  ['Shadowridge', 'SHD'],
  ['London', 'LHR'],
  ['Paris', 'CDG'],
  ['Sunset Valley', 'SSV'],
  ['Oakendale', 'OKD'],
  ['Willowbend', 'WLB'],
  ['Crescent Hollow', 'CRH'],
  ['Autumnville', 'ATV'],
  ['Pinehaven', 'PHV'],
  ['Greenfield', 'GFD'],
  ['San Francisco', 'SFO'],
  ['Los Angeles', 'LAX'],
  ['New York', 'JFK'],
  ['Chicago', 'ORD'],
  ['Boston', 'BOS'],
  ['Beijing', 'PEK'],
  ['Hong Kong', 'HKG'],
  ['Rome', 'CIA'],
  ['Tokyo', 'HND'],
]);

/** One exchange rate: 1 unit of `base` buys `rate` units of `target`. */
export type TravelExchangeRate = {
  /** Always `USD` in BFCL's table. */
  readonly base: string;
  /** The other currency. */
  readonly target: string;
  /**
   * The rate, a Python `int` (bigint) or `float` (number): BFCL's table mixes
   * both, and `100 * 7` prints `700` where `100 * 0.8` prints `80.0`.
   */
  readonly rate: bigint | number;
};

/** `compute_exchange_rate`'s table, in BFCL's order. */
export const travelExchangeRates: readonly TravelExchangeRate[] = (
  [
    ['RMB', 7n],
    ['EUR', 0.8],
    ['JPY', 110n],
    ['GBP', 0.7],
    ['CAD', 1.3],
    ['AUD', 1.4],
    ['INR', 70n],
    ['RUB', 60n],
    ['BRL', 3.8],
    ['MXN', 20n],
  ] as const
).map(([target, rate]) => ({ base: 'USD', target, rate }));
