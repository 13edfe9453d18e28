import { vehicleCityZipcodes } from '@seal/bfcl';
import { between, chance, listText, money, pick, pickSome } from '../draw';
import { defineIntent } from '../phrasing';
import { callText, int } from '../py-build';
import { carDoors, vehicleState, type CarSettings } from '../states';
import type { FamilyContext, TaskFamily } from '../task-family';
import { stateCodes, streets } from '../word-lists';
import { supplyIntents } from './supply-intents';

const classes = ['VehicleControlAPI'] as const;

/** A parked car; the values nobody asks about come from the noise stream. */
function car(
  context: FamilyContext,
  settings: Partial<CarSettings>,
): CarSettings {
  const { noise } = context;
  const pressure = (): number => between(noise, 300, 360) / 10;
  return {
    seed: context.random.randint(1, 999_999),
    fuelLevel: money(noise, 8, 30),
    unlockedDoors: [],
    engineRunning: false,
    acTemperature: between(noise, 18, 26),
    tirePressures: [pressure(), pressure(), pressure(), pressure()],
    batteryVoltage: between(noise, 120, 128) / 10,
    headlightsOn: chance(noise, 0.3),
    ...settings,
  };
}

const lockDoors = defineIntent('vehicle.lock-doors', [
  'Lock the {doors} doors.',
  'Please lock these doors: {doors}.',
  'Make sure the {doors} doors are locked.',
  'Before we go, secure the {doors} doors.',
]);
const lockSomeDoors = defineIntent('vehicle.lock-doors.no-doors', [
  'Lock some of the doors.',
  'Please lock a few doors.',
  'Make sure some doors are locked.',
  'Before we go, secure a couple of doors.',
]);
const cruise = defineIntent('vehicle.cruise', [
  'Turn on cruise control at {speed} with {distance} metres to the car ahead.',
  'Set cruise control to {speed}, keeping {distance} metres of distance.',
  'Activate cruise at speed {speed} and a gap of {distance} metres.',
  'Hold {speed} on cruise and stay {distance} metres back.',
]);
const startEngine = defineIntent('vehicle.start-engine', [
  'Now press the brake pedal to 1.0 and start the engine.',
  'Hold the brake at 1.0, then START the engine.',
  'Push the brake pedal to 1.0 and start the car.',
  'With the brake held at 1.0, start up the motor.',
]);

/** Lock the unlocked doors, then brake and start the engine. */
export const startFamily: TaskFamily = {
  id: 'vehicle.start',
  longContext: false,
  classes,
  difficulty: 'hard',
  pool: 'in-distribution',
  summary:
    'Lock the doors that are open, press the brake and start the engine, maybe set cruise control.',
  intents: [lockDoors, lockSomeDoors, startEngine, cruise, supplyIntents.doors],
  build(context) {
    const { random } = context;
    const count = between(random, 1, 4);
    const chosen = new Set(pickSome(random, carDoors, count));
    const cruising = chance(random, 0.6);
    const speed = between(random, 6, 24) * 5;
    const gap = between(random, 4, 20) * 5;
    const doors = carDoors.filter((door) => chosen.has(door));
    const draft = context.begin({
      VehicleControlAPI: vehicleState(car(context, { unlockedDoors: doors })),
    });
    const named = listText(doors);
    draft.turn({
      request: context.phrase(lockDoors, { doors: named }),
      calls: [callText('lockDoors', { unlock: false, door: doors })],
      missing: {
        request: context.phrase(lockSomeDoors, {}),
        supply: context.phrase(supplyIntents.doors, { value: named }),
        slot: 'doors',
        withheld: doors,
      },
    });
    draft.turn({
      request: context.phrase(startEngine, {}),
      calls: [
        callText('pressBrakePedal', { pedalPosition: 1.0 }),
        callText('startEngine', { ignitionMode: 'START' }),
      ],
    });
    if (cruising) {
      draft.turn({
        request: context.phrase(cruise, {
          speed: String(speed),
          distance: String(gap),
        }),
        calls: [
          callText('setCruiseControl', {
            speed: int(speed),
            activate: true,
            distanceToNextVehicle: int(gap),
          }),
        ],
      });
    }
    return draft.finish();
  },
};

const fillGallons = defineIntent('vehicle.fill', [
  'Add {gallons} gallons of fuel.',
  'Fill the tank with {gallons} more gallons.',
  'Put {gallons} gallons in the tank.',
  'Top the car up by {gallons} gallons of gas.',
]);
const fillSome = defineIntent('vehicle.fill.no-amount', [
  'Add some fuel.',
  'Fill the tank a bit.',
  'Put some gas in the tank.',
  'Top the car up with gas.',
]);
const canDrive = defineIntent('vehicle.can-drive', [
  'Can I drive {miles} miles now?',
  'Is there enough fuel for {miles} miles?',
  'Check if I can make a {miles} mile trip.',
  'Will the tank last for {miles} miles?',
]);

/** Add fuel, then ask whether a distance is reachable. */
export const refuelFamily: TaskFamily = {
  id: 'vehicle.refuel',
  longContext: false,
  classes,
  difficulty: 'medium',
  pool: 'in-distribution',
  summary:
    'Add a number of gallons and check whether a trip of some miles is feasible.',
  intents: [fillGallons, fillSome, canDrive, supplyIntents.quantity],
  build(context) {
    const { random } = context;
    const fuel = money(random, 2, 30);
    const gallons = between(random, 2, Math.floor(50 - fuel));
    const miles = between(random, 5, 80) * 10;
    const draft = context.begin({
      VehicleControlAPI: vehicleState(car(context, { fuelLevel: fuel })),
    });
    draft.turn({
      request: context.phrase(fillGallons, { gallons: String(gallons) }),
      calls: [callText('fillFuelTank', { fuelAmount: int(gallons) })],
      missing: {
        request: context.phrase(fillSome, {}),
        supply: context.phrase(supplyIntents.quantity, {
          value: `${gallons} gallons`,
        }),
        slot: 'fuel amount',
        withheld: [String(gallons)],
      },
    });
    draft.turn({
      request: context.phrase(canDrive, { miles: String(miles) }),
      calls: [
        callText('estimate_drive_feasibility_by_mileage', {
          distance: int(miles),
        }),
      ],
    });
    return draft.finish();
  },
};

const climate = defineIntent('vehicle.climate', [
  'Set the temperature to {temperature} degrees {unit} with fan speed {fan}.',
  'Make it {temperature} degrees {unit} inside, fan at {fan}.',
  'Adjust the climate to {temperature} {unit}, fan speed {fan}.',
  'I would like {temperature} degrees {unit} in here and the fan on {fan}.',
]);
const climateNoTemperature = defineIntent('vehicle.climate.no-temperature', [
  'Set the temperature in {unit} with fan speed {fan}.',
  'Change the cabin temperature, fan at {fan}, in {unit}.',
  'Adjust the climate in {unit}, fan speed {fan}.',
  'I would like it warmer or cooler in {unit}, fan on {fan}.',
]);
const headlights = defineIntent('vehicle.headlights', [
  'Turn the headlights {mode}.',
  'Switch the headlights {mode}.',
  'Set the headlights to {mode}.',
  'Headlights {mode}, please.',
]);

/** Set the climate control, maybe the headlights. */
export const climateFamily: TaskFamily = {
  id: 'vehicle.climate',
  longContext: false,
  classes,
  difficulty: 'easy',
  pool: 'in-distribution',
  summary:
    'Set cabin temperature, unit and fan speed; optionally switch the headlights.',
  intents: [climate, climateNoTemperature, headlights, supplyIntents.quantity],
  build(context) {
    const { random } = context;
    const unit = pick(random, ['celsius', 'fahrenheit'] as const);
    const temperature =
      unit === 'celsius' ? between(random, 16, 28) : between(random, 60, 82);
    const fan = between(random, 1, 9) * 10;
    const lights = chance(random, 0.4)
      ? pick(random, ['on', 'off'] as const)
      : undefined;
    const draft = context.begin({
      VehicleControlAPI: vehicleState(car(context, {})),
    });
    draft.turn({
      request: context.phrase(climate, {
        temperature: String(temperature),
        unit,
        fan: String(fan),
      }),
      calls: [
        callText('adjustClimateControl', {
          temperature: int(temperature),
          unit,
          fanSpeed: int(fan),
        }),
      ],
      missing: {
        request: context.phrase(climateNoTemperature, {
          unit,
          fan: String(fan),
        }),
        supply: context.phrase(supplyIntents.quantity, {
          value: `${temperature} degrees`,
        }),
        slot: 'temperature',
        withheld: [String(temperature)],
      },
    });
    if (lights !== undefined) {
      draft.turn({
        request: context.phrase(headlights, { mode: lights }),
        calls: [callText('setHeadlights', { mode: lights })],
      });
    }
    return draft.finish();
  },
};

/** City pairs with a known road distance (both cities have zip codes). */
const drivablePairs: readonly (readonly [string, string])[] = [
  ['Rivermist', 'Stonebrook'],
  ['Maplecrest', 'Silverpine'],
  ['Shadowridge', 'Sunset Valley'],
  ['Oakendale', 'Willowbend'],
  ['Crescent Hollow', 'Autumnville'],
  ['San Francisco', 'Rivermist'],
  ['Silverpine', 'Oakendale'],
  ['San Francisco', 'Silverpine'],
  ['Stonebrook', 'San Francisco'],
];

const zipOf = defineIntent('vehicle.zip', [
  'What is the zip code of {city}?',
  'Look up the zip code for {city}.',
  "Find {city}'s zip code.",
  'I am starting in {city}; which zip code is that?',
]);
const distanceTo = defineIntent('vehicle.distance', [
  'How far is it from there to {city}?',
  'What is the distance from there to {city}?',
  'How many kilometres is it to {city} from there?',
  'Tell me the road distance on to {city}.',
]);
const navigate = defineIntent('vehicle.navigate', [
  'Navigate to {address}.',
  'Set the navigation to {address}.',
  'Take me to {address}.',
  'Plot a route to {address} for me.',
]);
const navigateNowhere = defineIntent('vehicle.navigate.no-address', [
  'Start the navigation.',
  'Set the navigation for me.',
  'Take me to my friend.',
  'Plot a route for me.',
]);

/** Two zip-code look-ups, a distance, then navigation to an address. */
export const routeFamily: TaskFamily = {
  id: 'vehicle.route',
  longContext: false,
  classes,
  difficulty: 'hard',
  pool: 'in-distribution',
  summary:
    'Find zip codes of two cities, the road distance between them, then navigate to an address.',
  intents: [
    zipOf,
    distanceTo,
    navigate,
    navigateNowhere,
    supplyIntents.address,
  ],
  build(context) {
    const { random } = context;
    const pair = pick(random, drivablePairs);
    const [from, to] = chance(random, 0.5)
      ? [pair[0], pair[1]]
      : [pair[1], pair[0]];
    const address = `${pick(random, streets)}, ${to}, ${pick(random, stateCodes)}`;
    const fromZip = vehicleCityZipcodes.get(from)!;
    const toZip = vehicleCityZipcodes.get(to)!;
    const draft = context.begin({
      VehicleControlAPI: vehicleState(car(context, {})),
    });
    draft.turn({
      request: context.phrase(zipOf, { city: from }),
      calls: [callText('get_zipcode_based_on_city', { city: from })],
    });
    draft.turn({
      request: context.phrase(distanceTo, { city: to }),
      calls: [
        callText('get_zipcode_based_on_city', { city: to }),
        callText('estimate_distance', { cityA: fromZip, cityB: toZip }),
      ],
    });
    draft.turn({
      request: context.phrase(navigate, { address }),
      calls: [callText('set_navigation', { destination: address })],
      missing: {
        request: context.phrase(navigateNowhere, {}),
        supply: context.phrase(supplyIntents.address, { value: address }),
        slot: 'destination',
        withheld: [address],
      },
    });
    return draft.finish();
  },
};

const fillLiters = defineIntent('vehicle.fill-liters', [
  'Add {liters} liters of fuel.',
  'Put {liters} liters in the tank.',
  'Fill up with {liters} liters.',
  'I bought {liters} liters of gas; pour it in.',
]);
const fillLitersNoAmount = defineIntent('vehicle.fill-liters.no-amount', [
  'Add some liters of fuel.',
  'Put a few liters in the tank.',
  'Fill up with liters.',
  'I bought some gas in liters; pour it in.',
]);
const showFuel = defineIntent('vehicle.show-fuel', [
  'What is the fuel level now?',
  'Show me the fuel status.',
  'How much fuel is in the tank?',
  'Report the fuel reading.',
]);

/** Convert litres to gallons, fill that many gallons (copied), maybe show the fuel. */
export const refuelLitersFamily: TaskFamily = {
  id: 'vehicle.refuel-liters',
  longContext: false,
  classes,
  difficulty: 'hard',
  pool: 'in-distribution',
  summary:
    'Convert litres to gallons, add that fuel, optionally display the fuel level.',
  intents: [fillLiters, fillLitersNoAmount, showFuel, supplyIntents.quantity],
  build(context) {
    const { random } = context;
    const liters = between(random, 10, 80);
    const fuel = money(random, 2, 25);
    const show = chance(random, 0.5);
    const draft = context.begin({
      VehicleControlAPI: vehicleState(car(context, { fuelLevel: fuel })),
    });
    const gallons = liters * 0.264172;
    draft.turn({
      request: context.phrase(fillLiters, { liters: String(liters) }),
      calls: [
        callText('liter_to_gallon', { liter: int(liters) }),
        callText('fillFuelTank', { fuelAmount: gallons }),
      ],
      missing: {
        request: context.phrase(fillLitersNoAmount, {}),
        supply: context.phrase(supplyIntents.quantity, {
          value: `${liters} liters`,
        }),
        slot: 'litres',
        withheld: [String(liters)],
      },
    });
    if (show)
      draft.turn({
        request: context.phrase(showFuel, {}),
        calls: [callText('displayCarStatus', { option: 'fuel' })],
      });
    return draft.finish();
  },
};

/** The VehicleControlAPI families. */
export const vehicleFamilies: readonly TaskFamily[] = [
  startFamily,
  refuelFamily,
  climateFamily,
  routeFamily,
  refuelLitersFamily,
];
