import {
  PyDict,
  PyException,
  PyRandom,
  pyAdd,
  pyContains,
  pyDeepCopy,
  pyEquals,
  pyFloat,
  pyGetItem,
  pyGt,
  pyIter,
  pyLe,
  pyLt,
  pyMod,
  pyMul,
  pySub,
  pyTrueDiv,
  pyTruthy,
  pyTypeName,
  type PyKey,
  type PyValue,
} from '@seal/python';
import * as z from 'zod';
import {
  errorResult as error,
  expectDict,
  pyDict as dict,
} from './api-helpers';
import {
  BfclApi,
  type BfclClassDefinition,
  type BfclMethodTable,
} from './bfcl-api';
import type { BfclRealm } from './bfcl-realm';
import type { BfclToolSpecs } from './tool-spec';
import { vehicleCityZipcodes, vehicleRouteDistance } from './vehicle-routes';

/** The tank holds at most this many gallons (an `int` in Python). */
const maxFuelLevel = 50n;
/** The empty tank (a `float` in Python). */
const minFuelLevel = 0.0;
/** Miles per gallon used by the range estimate (a `float` in Python). */
const milesPerGallon = 20.0;

/**
 * The realm-global key of long-context `LONG_WEATHER_EXTENSION`. BFCL's
 * `get_outside_temperature_from_google` writes into that module-level dict and
 * returns it, so every instance of one Python process shares (and sees) the
 * same object, and `outsideTemperature` is appended at the end the first time.
 */
const longWeatherGlobalKey = 'long_context.LONG_WEATHER_EXTENSION';

/** `random.Random(seed)` for the seed values a scenario can hold. */
function createRandom(seed: PyValue): PyRandom {
  if (typeof seed === 'bigint') return new PyRandom(seed);
  if (typeof seed === 'boolean') return new PyRandom(seed ? 1n : 0n);
  // A float seed is hashed first; for an integral float hash(x) == x, except
  // hash(-1.0) == -2 (and the seed's sign is dropped afterwards).
  if (typeof seed === 'number' && Number.isInteger(seed)) {
    return new PyRandom(seed === -1 ? 2n : BigInt(seed));
  }
  throw PyException.typeError(
    `unsupported random_seed of type '${pyTypeName(seed)}' for this port`,
  );
}

/** `0 <= value <= bound`, evaluated (and short-circuited) like Python's chained comparison. */
function between(value: PyValue, low: bigint, high: bigint): boolean {
  return pyLe(low, value) && pyLe(value, high);
}

/**
 * BFCL's `VehicleControlAPI`: a simulated car (engine, doors, climate,
 * lights, brakes, cruise control, navigation, tyres) plus a few stateless
 * helpers (unit conversions, distances, zip codes). Behaviour, messages and
 * state follow BFCL v3 (gorilla `cd9429cc`).
 */
export class VehicleControlApi extends BfclApi {
  readonly className = 'VehicleControlAPI' as const;
  protected readonly attributeNames = [
    'fuelLevel',
    'batteryVoltage',
    'engine_state',
    'remainingUnlockedDoors',
    'doorStatus',
    'acTemperature',
    'fanSpeed',
    'acMode',
    'humidityLevel',
    'headLightStatus',
    'parkingBrakeStatus',
    'brakePedalStatus',
    'distanceToNextVehicle',
    'cruiseStatus',
    'destination',
    'frontLeftTirePressure',
    'frontRightTirePressure',
    'rearLeftTirePressure',
    'rearRightTirePressure',
    'long_context',
  ] as const;

  /** Fuel in gallons. */
  fuelLevel!: PyValue;
  /** Battery voltage in volts. */
  batteryVoltage!: PyValue;
  /** `running` or `stopped` (loaded from the config key `engineState`). */
  engine_state!: PyValue;
  /** Number of unlocked doors (recomputed from `doorStatus` at load). */
  remainingUnlockedDoors!: PyValue;
  /** Door name → `locked`/`unlocked`. */
  doorStatus!: PyValue;
  /** Climate set point in degrees Celsius. */
  acTemperature!: PyValue;
  /** Fan speed, 0 to 100. */
  fanSpeed!: PyValue;
  /** Climate mode. */
  acMode!: PyValue;
  /** Humidity in percent. */
  humidityLevel!: PyValue;
  /** `on` or `off`. */
  headLightStatus!: PyValue;
  /** `engaged` or `released`. */
  parkingBrakeStatus!: PyValue;
  /** `pressed` or `released`. */
  brakePedalStatus!: PyValue;
  /** Cruise-control following distance in metres. */
  distanceToNextVehicle!: PyValue;
  /** `active` or `inactive`. */
  cruiseStatus!: PyValue;
  /** The navigation destination (the string `'None'` by default). */
  destination!: PyValue;
  /** Front-left tyre pressure in psi. */
  frontLeftTirePressure!: PyValue;
  /** Front-right tyre pressure in psi. */
  frontRightTirePressure!: PyValue;
  /** Rear-left tyre pressure in psi. */
  rearLeftTirePressure!: PyValue;
  /** Rear-right tyre pressure in psi. */
  rearRightTirePressure!: PyValue;
  /** Whether the long-context padding is on (public, so compared). */
  long_context!: PyValue;

  // Private in Python (leading underscore): never compared.
  private random!: PyRandom;
  private parkingBrakeForce!: PyValue;
  private slopeAngle!: PyValue;
  private brakePedalForce!: PyValue;

  constructor(realm: BfclRealm) {
    super(realm);
  }

  loadScenario(scenario: PyDict, longContext: boolean): void {
    const fields = this.realm.scenarioFields({
      className: 'VehicleControlAPI',
      scenario,
    });
    const get = (key: string, defaultKey = key): PyValue =>
      fields.get(key, defaultKey);
    this.random = createRandom(get('random_seed'));
    this.fuelLevel = get('fuelLevel');
    this.batteryVoltage = get('batteryVoltage');
    // Loaded from `engineState`, stored as `engine_state`.
    this.engine_state = get('engineState', 'engine_state');
    this.doorStatus = get('doorStatus');
    // The configured `remainingUnlockedDoors` is overwritten: 4 minus the
    // number of doors whose status is exactly "locked".
    const doors = expectDict(this.doorStatus, 'keys');
    const locked = [...doors.values()].filter((status) =>
      pyEquals(status, 'locked'),
    ).length;
    this.remainingUnlockedDoors = 4n - BigInt(locked);
    this.acTemperature = get('acTemperature');
    this.fanSpeed = get('fanSpeed');
    this.acMode = get('acMode');
    this.humidityLevel = get('humidityLevel');
    this.headLightStatus = get('headLightStatus');
    this.parkingBrakeStatus = get('parkingBrakeStatus');
    this.parkingBrakeForce = get('parkingBrakeForce', '_parkingBrakeForce');
    this.slopeAngle = get('slopeAngle', '_slopeAngle');
    this.brakePedalStatus = get('brakePedalStatus');
    this.brakePedalForce = get('brakePedalForce');
    this.distanceToNextVehicle = get('distanceToNextVehicle');
    this.cruiseStatus = get('cruiseStatus');
    this.destination = get('destination');
    this.frontLeftTirePressure = get('frontLeftTirePressure');
    this.frontRightTirePressure = get('frontRightTirePressure');
    this.rearLeftTirePressure = get('rearLeftTirePressure');
    this.rearRightTirePressure = get('rearRightTirePressure');
    this.long_context = longContext;
  }

  private constant(name: string): PyValue {
    return this.realm.longContextConstant(name);
  }

  /** The realm's (process's) one `LONG_WEATHER_EXTENSION` dict. */
  private longWeather(): PyDict {
    return this.realm.global(longWeatherGlobalKey, () => {
      const value = pyDeepCopy(this.constant('LONG_WEATHER_EXTENSION'));
      return value instanceof PyDict ? value : new PyDict();
    });
  }

  private parkingBrakeResult(status: string, force: number): PyDict {
    const result = new PyDict();
    if (pyTruthy(this.long_context)) {
      result.set(
        'parkingBrakeInstruction',
        this.constant('PARKING_BRAKE_INSTRUCTION'),
      );
    }
    result.set('parkingBrakeStatus', status);
    result.set('_parkingBrakeForce', force);
    result.set('_slopeAngle', 10.0);
    return result;
  }

  static readonly methods: BfclMethodTable<VehicleControlApi> = {
    startEngine: {
      parameters: [{ name: 'ignitionMode' }],
      call(self, [mode]) {
        // "STOP" stops the engine before the checks below, which may still fail.
        if (pyEquals(mode!, 'STOP')) self.engine_state = 'stopped';
        if (pyGt(self.remainingUnlockedDoors, 0n)) {
          const unlocked = [...expectDict(self.doorStatus, 'items')]
            .filter(([, status]) => pyEquals(status, 'unlocked'))
            .map(([door]) => door);
          return error(
            'All doors must be locked before starting the engine. Here are the unlocked doors: ' +
              joinStrings(unlocked),
          );
        }
        if (!pyEquals(self.brakePedalStatus, 'pressed')) {
          return error(
            'Brake pedal needs to be pressed when starting the engine.',
          );
        }
        if (!pyEquals(self.brakePedalForce, 1000.0)) {
          return error(
            'Must press the brake fully before starting the engine.',
          );
        }
        if (pyLt(self.fuelLevel, minFuelLevel))
          return error('Fuel tank is empty.');
        if (!pyEquals(mode!, 'START')) return error('Invalid ignition mode.');
        self.engine_state = 'running';
        return dict({
          engineState: self.engine_state,
          fuelLevel: self.fuelLevel,
          batteryVoltage: self.batteryVoltage,
        });
      },
    },
    fillFuelTank: {
      parameters: [{ name: 'fuelAmount' }],
      call(self, [amount]) {
        if (pyLt(amount!, 0n)) return error('Fuel amount cannot be negative.');
        if (pyGt(pyAdd(self.fuelLevel, amount!), maxFuelLevel)) {
          return error('Cannot fill gas above the tank capacity.');
        }
        if (pyLt(pyAdd(self.fuelLevel, amount!), minFuelLevel)) {
          return error('Fuel tank is empty. Min fuel level is 0 gallons.');
        }
        self.fuelLevel = pyAdd(self.fuelLevel, amount!);
        return dict({ fuelLevel: self.fuelLevel });
      },
    },
    lockDoors: {
      parameters: [{ name: 'unlock' }, { name: 'door' }],
      call(self, [unlock, doors]) {
        const target = pyTruthy(unlock!) ? 'unlocked' : 'locked';
        const step = target === 'unlocked' ? 1n : -1n;
        for (const door of pyIter(doors!)) {
          // An unknown door raises KeyError here; doors handled before it
          // stay changed.
          if (pyEquals(pyGetItem(self.doorStatus, door), target)) continue;
          expectDict(self.doorStatus, '__setitem__').set(door as PyKey, target);
          self.remainingUnlockedDoors = pyAdd(
            self.remainingUnlockedDoors,
            step,
          );
        }
        return dict({
          lockStatus: target,
          remainingUnlockedDoors: self.remainingUnlockedDoors,
        });
      },
    },
    adjustClimateControl: {
      parameters: [
        { name: 'temperature' },
        { name: 'unit', default: 'celsius' },
        { name: 'fanSpeed', default: 50n },
        { name: 'mode', default: 'auto' },
      ],
      call(self, [temperature, unit, fanSpeed, mode]) {
        if (!between(fanSpeed!, 0n, 100n))
          return error('Fan speed must be between 0 and 100.');
        // The raw value is stored first: a conversion that raises leaves it.
        self.acTemperature = temperature!;
        if (pyEquals(unit!, 'fahrenheit')) {
          self.acTemperature = pyTrueDiv(
            pyMul(pySub(temperature!, 32n), 5n),
            9n,
          );
        }
        self.fanSpeed = fanSpeed!;
        self.acMode = mode!;
        // Reports the temperature as given, not the stored Celsius value.
        return dict({
          currentACTemperature: temperature!,
          climateMode: mode!,
          humidityLevel: self.humidityLevel,
        });
      },
    },
    get_outside_temperature_from_google: {
      parameters: [],
      call(self) {
        if (pyTruthy(self.long_context)) {
          const weather = self.longWeather();
          weather.set('outsideTemperature', self.random.uniform(-10.0, 40.0));
          return weather;
        }
        return dict({ outsideTemperature: self.random.uniform(-10.0, 40.0) });
      },
    },
    get_outside_temperature_from_weather_com: {
      parameters: [],
      call() {
        return dict({ error: 404n });
      },
    },
    setHeadlights: {
      parameters: [{ name: 'mode' }],
      call(self, [mode]) {
        if (!pyContains(['on', 'off', 'auto'], mode!))
          return error('Invalid headlight mode.');
        const status = pyEquals(mode!, 'on') ? 'on' : 'off';
        self.headLightStatus = status;
        return dict({ headlightStatus: status });
      },
    },
    displayCarStatus: {
      parameters: [{ name: 'option' }],
      call(self, [option]) {
        const status = new PyDict();
        if (pyTruthy(self.long_context)) {
          status.set(
            'metadata',
            self.constant('CAR_STATUS_METADATA_EXTENSION'),
          );
        }
        // Only a str equals a str, so a plain switch matches Python's `==` chain.
        switch (typeof option === 'string' ? option : undefined) {
          case 'fuel':
            status.set('fuelLevel', self.fuelLevel);
            break;
          case 'battery':
            status.set('batteryVoltage', self.batteryVoltage);
            break;
          case 'doors':
            status.set('doorStatus', self.doorStatus);
            break;
          case 'climate':
            status.set('currentACTemperature', self.acTemperature);
            status.set('fanSpeed', self.fanSpeed);
            status.set('climateMode', self.acMode);
            status.set('humidityLevel', self.humidityLevel);
            break;
          case 'headlights':
            status.set('headlightStatus', self.headLightStatus);
            break;
          case 'parkingBrake':
            status.set('parkingBrakeStatus', self.parkingBrakeStatus);
            status.set('parkingBrakeForce', self.parkingBrakeForce);
            status.set('slopeAngle', self.slopeAngle);
            break;
          case 'brakePedal':
            status.set('brakePedalStatus', self.brakePedalStatus);
            status.set('brakePedalForce', self.brakePedalForce);
            break;
          case 'engine':
            status.set('engineState', self.engine_state);
            break;
          default:
            status.set('error', 'Invalid option');
        }
        return status;
      },
    },
    activateParkingBrake: {
      parameters: [{ name: 'mode' }],
      call(self, [mode]) {
        if (!pyContains(['engage', 'release'], mode!))
          return error('Invalid mode');
        // Releasing also sets the slope angle to 10.0, as BFCL does.
        self.slopeAngle = 10.0;
        if (pyEquals(mode!, 'engage')) {
          self.parkingBrakeStatus = 'engaged';
          self.parkingBrakeForce = 500.0;
          return self.parkingBrakeResult('engaged', 500.0);
        }
        self.parkingBrakeStatus = 'released';
        self.parkingBrakeForce = 0.0;
        return self.parkingBrakeResult('released', 0.0);
      },
    },
    pressBrakePedal: {
      parameters: [{ name: 'pedalPosition' }],
      call(self, [position]) {
        if (!between(position!, 0n, 1n))
          return error('Pedal position must be between 0 and 1.');
        if (pyEquals(position!, 0n)) {
          self.brakePedalStatus = 'released';
          self.brakePedalForce = 0.0;
          return dict({ brakePedalStatus: 'released', brakePedalForce: 0.0 });
        }
        // The force keeps the argument's type (int for `1`); only the reply
        // is converted to float. startEngine then needs it to equal 1000.0.
        const force = pyMul(position!, 1000n);
        self.brakePedalStatus = 'pressed';
        self.brakePedalForce = force;
        return dict({
          brakePedalStatus: 'pressed',
          brakePedalForce: pyFloat(force),
        });
      },
    },
    releaseBrakePedal: {
      parameters: [],
      call(self) {
        self.brakePedalStatus = 'released';
        self.brakePedalForce = 0.0;
        return dict({ brakePedalStatus: 'released', brakePedalForce: 0.0 });
      },
    },
    setCruiseControl: {
      parameters: [
        { name: 'speed' },
        { name: 'activate' },
        { name: 'distanceToNextVehicle' },
      ],
      call(self, [speedArgument, activate, distanceArgument]) {
        // Both are cast to float first (distance first), so bad values raise
        // before any check.
        const distance = pyFloat(distanceArgument!);
        const speed = pyFloat(speedArgument!);
        if (pyEquals(self.engine_state, 'stopped')) {
          return error(
            'Start the engine before activating the cruise control.',
          );
        }
        if (pyTruthy(activate!)) {
          // The distance is stored before the speed is validated.
          self.distanceToNextVehicle = distance;
          if (speed < 0 || speed > 120 || !pyEquals(pyMod(speed, 5n), 0n)) {
            return error('Invalid speed');
          }
          self.cruiseStatus = 'active';
          return dict({
            cruiseStatus: 'active',
            currentSpeed: speed,
            distanceToNextVehicle: distance,
          });
        }
        self.cruiseStatus = 'inactive';
        self.distanceToNextVehicle = distance;
        return dict({
          cruiseStatus: 'inactive',
          currentSpeed: speed,
          distanceToNextVehicle: distance,
        });
      },
    },
    get_current_speed: {
      parameters: [],
      call(self) {
        return dict({ currentSpeed: self.random.uniform(0.0, 120.0) });
      },
    },
    display_log: {
      parameters: [{ name: 'messages' }],
      call(_self, [messages]) {
        return dict({ log: messages! });
      },
    },
    estimate_drive_feasibility_by_mileage: {
      parameters: [{ name: 'distance' }],
      call(self, [distance]) {
        return dict({
          canDrive: !pyLt(pyMul(self.fuelLevel, milesPerGallon), distance!),
        });
      },
    },
    liter_to_gallon: {
      parameters: [{ name: 'liter' }],
      call(_self, [liter]) {
        return dict({ gallon: pyMul(liter!, 0.264172) });
      },
    },
    gallon_to_liter: {
      parameters: [{ name: 'gallon' }],
      call(_self, [gallon]) {
        return dict({ liter: pyMul(gallon!, 3.78541) });
      },
    },
    estimate_distance: {
      parameters: [{ name: 'cityA' }, { name: 'cityB' }],
      call(self, [cityA, cityB]) {
        const distance = vehicleRouteDistance(cityA!, cityB!);
        const result =
          distance === undefined
            ? error('distance not found in database.')
            : dict({ distance });
        if (pyTruthy(self.long_context)) {
          result.set(
            'intermediaryCities',
            self.constant('INTERMEDIARY_CITIES'),
          );
        }
        return result;
      },
    },
    get_zipcode_based_on_city: {
      parameters: [{ name: 'city' }],
      call(_self, [city]) {
        const zipcode =
          typeof city === 'string' ? vehicleCityZipcodes.get(city) : undefined;
        return dict({ zipcode: zipcode ?? '00000' });
      },
    },
    set_navigation: {
      parameters: [{ name: 'destination' }],
      call(self, [destination]) {
        // Stored before the concatenation, which raises for a non-str.
        self.destination = destination!;
        return dict({ status: pyAdd('Navigating to ', destination!) });
      },
    },
    check_tire_pressure: {
      parameters: [],
      call(self) {
        const total = pyAdd(
          pyAdd(
            pyAdd(self.frontLeftTirePressure, self.frontRightTirePressure),
            self.rearLeftTirePressure,
          ),
          self.rearRightTirePressure,
        );
        const healthy = between(pyTrueDiv(total, 4n), 30n, 35n);
        return dict({
          frontLeftTirePressure: self.frontLeftTirePressure,
          frontRightTirePressure: self.frontRightTirePressure,
          rearLeftTirePressure: self.rearLeftTirePressure,
          rearRightTirePressure: self.rearRightTirePressure,
          healthy_tire_pressure: healthy,
          car_info: pyTruthy(self.long_context)
            ? self.constant('CAR_STATUS_METADATA_EXTENSION')
            : new PyDict(),
        });
      },
    },
    find_nearest_tire_shop: {
      parameters: [],
      call() {
        return dict({ shopLocation: '456 Oakwood Avenue, Rivermist, 83214' });
      },
    },
  };
}

/** `", ".join(items)`: every item must be a str. */
function joinStrings(items: readonly PyValue[]): string {
  return items
    .map((item, index) => {
      if (typeof item !== 'string') {
        throw PyException.typeError(
          `sequence item ${index}: expected str instance, ${pyTypeName(item)} found`,
        );
      }
      return item;
    })
    .join(', ');
}

const doorName = z
  .string()
  .describe('A door: driver, passenger, rear_left or rear_right.');

/** Our descriptions and argument schemas of the VehicleControlAPI methods. */
export const vehicleControlApiTools: BfclToolSpecs = {
  startEngine: {
    description:
      'Turn the engine on with "START" (doors locked and brake pedal fully pressed first) or off with "STOP".',
    parameters: z.object({
      ignitionMode: z.string().describe('"START" or "STOP".'),
    }),
  },
  fillFuelTank: {
    description:
      'Add fuel, in gallons, to the tank; the tank takes at most 50 gallons in total.',
    parameters: z.object({
      fuelAmount: z
        .number()
        .describe('Gallons to add to what is already in the tank.'),
    }),
  },
  lockDoors: {
    description:
      'Lock or unlock the listed doors and report how many doors remain unlocked.',
    parameters: z.object({
      unlock: z
        .boolean()
        .describe('true to unlock the doors, false to lock them.'),
      door: z.array(doorName).describe('The doors to change.'),
    }),
  },
  adjustClimateControl: {
    description: 'Set the cabin temperature, fan speed and climate mode.',
    parameters: z.object({
      temperature: z
        .number()
        .describe('Target temperature, in the given unit.'),
      unit: z
        .string()
        .default('celsius')
        .describe('"celsius" or "fahrenheit". Default: celsius.'),
      fanSpeed: z
        .int()
        .default(50)
        .describe('Fan speed from 0 to 100. Default: 50.'),
      mode: z
        .string()
        .default('auto')
        .describe('"auto", "cool", "heat" or "defrost". Default: auto.'),
    }),
  },
  get_outside_temperature_from_google: {
    description:
      'Read the current outside temperature in Celsius (Google weather source).',
    parameters: z.object({}),
  },
  get_outside_temperature_from_weather_com: {
    description:
      'Read the current outside temperature in Celsius (weather.com source).',
    parameters: z.object({}),
  },
  setHeadlights: {
    description:
      'Switch the headlights on or off, or put them in automatic mode.',
    parameters: z.object({
      mode: z.string().describe('"on", "off" or "auto".'),
    }),
  },
  displayCarStatus: {
    description: 'Show one group of vehicle readings, picked by option.',
    parameters: z.object({
      option: z
        .string()
        .describe(
          'One of "fuel", "battery", "doors", "climate", "headlights", "parkingBrake", "brakePedal", "engine".',
        ),
    }),
  },
  activateParkingBrake: {
    description: 'Engage or release the parking brake.',
    parameters: z.object({
      mode: z.string().describe('"engage" or "release".'),
    }),
  },
  pressBrakePedal: {
    description:
      'Press the brake pedal to a position and hold it there until it is released.',
    parameters: z.object({
      pedalPosition: z
        .number()
        .describe('0 (not pressed) to 1 (pressed all the way).'),
    }),
  },
  releaseBrakePedal: {
    description: 'Let go of the brake pedal.',
    parameters: z.object({}),
  },
  setCruiseControl: {
    description:
      'Turn cruise control on or off with a target speed and following distance; the engine must run.',
    parameters: z.object({
      speed: z.number().describe('Target speed, 0 to 120, in steps of 5.'),
      activate: z
        .boolean()
        .describe('true to turn cruise control on, false to turn it off.'),
      distanceToNextVehicle: z
        .number()
        .describe('Gap to keep to the vehicle ahead, in metres.'),
    }),
  },
  get_current_speed: {
    description: 'Read the speed the vehicle is driving at.',
    parameters: z.object({}),
  },
  display_log: {
    description: 'Show a list of messages on the vehicle display.',
    parameters: z.object({
      messages: z.array(z.string()).describe('The lines to show.'),
    }),
  },
  estimate_drive_feasibility_by_mileage: {
    description:
      'Tell whether the fuel in the tank is enough to drive a distance in miles.',
    parameters: z.object({
      distance: z.number().describe('The trip length in miles.'),
    }),
  },
  liter_to_gallon: {
    description: 'Convert a volume from litres to US gallons.',
    parameters: z.object({
      liter: z.number().describe('Volume in litres.'),
    }),
  },
  gallon_to_liter: {
    description: 'Convert a volume from US gallons to litres.',
    parameters: z.object({
      gallon: z.number().describe('Volume in gallons.'),
    }),
  },
  estimate_distance: {
    description:
      'Look up the road distance in kilometres between two cities given by zip code.',
    parameters: z.object({
      cityA: z.string().describe('Zip code of one city.'),
      cityB: z.string().describe('Zip code of the other city.'),
    }),
  },
  get_zipcode_based_on_city: {
    description: 'Look up the zip code of a city by its name.',
    parameters: z.object({
      city: z.string().describe('The city name.'),
    }),
  },
  set_navigation: {
    description: 'Start route guidance to an address.',
    parameters: z.object({
      destination: z
        .string()
        .describe('The address, as "street, city, state".'),
    }),
  },
  check_tire_pressure: {
    description:
      'Read the four tyre pressures in psi and whether their average is in the healthy range.',
    parameters: z.object({}),
  },
  find_nearest_tire_shop: {
    description: 'Find the address of the closest tyre shop.',
    parameters: z.object({}),
  },
};

/** Registry entry for {@link VehicleControlApi}. */
export const vehicleControlApiDefinition: BfclClassDefinition = {
  className: 'VehicleControlAPI',
  create: (realm) => new VehicleControlApi(realm),
  methods: VehicleControlApi.methods as BfclMethodTable<never>,
  stateless: false,
  description:
    'A car control system: engine, doors, climate, lights, brakes, cruise control, navigation and tyres.',
  tools: vehicleControlApiTools,
};
