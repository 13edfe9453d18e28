import { PyDict, parsePyJson, pyJsonDumps, type PyValue } from '@seal/python';
import { describe, expect, it } from 'vitest';
import {
  hasSharedBfclData,
  loadSharedBfclData,
  sharedDataSkipMessage,
} from '../test';
import { BfclRealm } from './bfcl-realm';
import { BfclSession } from '../session/bfcl-session';
import { VehicleControlApi } from './vehicle-control-api';

// Every expected string below was printed by BFCL's own Python (cd9429cc).

const scenario =
  '{"VehicleControlAPI": {"fuelLevel": 10.5, "doorStatus": {"driver": "locked", ' +
  '"passenger": "unlocked", "rear_left": "locked", "rear_right": "unlocked"}, ' +
  '"engineState": "running", "remainingUnlockedDoors": 0}}';

async function createRealm(): Promise<BfclRealm> {
  const dataset = await loadSharedBfclData();
  return new BfclRealm({ data: dataset.runtime });
}

async function createSession({
  longContext = false,
  realm,
}: { longContext?: boolean; realm?: BfclRealm } = {}): Promise<BfclSession> {
  return new BfclSession({
    realm: realm ?? (await createRealm()),
    initialConfig: parsePyJson(scenario) as PyDict,
    involvedClasses: ['VehicleControlAPI'],
    longContext,
  });
}

function run(session: BfclSession, calls: string[]): string[] {
  return calls.map((call) => session.execute(call).result);
}

function state(session: BfclSession): string {
  return pyJsonDumps(session.comparableState().get('VehicleControlAPI')!);
}

describe.skipIf(!hasSharedBfclData)('VehicleControlApi', () => {
  describe('loadScenario', () => {
    it('should read engineState, recompute remainingUnlockedDoors and keep vars() order', async () => {
      const session = await createSession();
      expect(state(session)).toBe(
        '{"fuelLevel": 10.5, "batteryVoltage": 12.6, "engine_state": "running", ' +
          '"remainingUnlockedDoors": 2, "doorStatus": {"driver": "locked", "passenger": "unlocked", ' +
          '"rear_left": "locked", "rear_right": "unlocked"}, "acTemperature": 25.0, "fanSpeed": 50, ' +
          '"acMode": "auto", "humidityLevel": 50.0, "headLightStatus": "off", ' +
          '"parkingBrakeStatus": "released", "brakePedalStatus": "released", ' +
          '"distanceToNextVehicle": 50.0, "cruiseStatus": "inactive", "destination": "None", ' +
          '"frontLeftTirePressure": 32.0, "frontRightTirePressure": 32.0, ' +
          '"rearLeftTirePressure": 30.0, "rearRightTirePressure": 30.0, "long_context": false}',
      );
    });
  });

  describe('startEngine and its preconditions', () => {
    it('should stop the engine on STOP before failing a check, and raise KeyError midway through lockDoors', async () => {
      const session = await createSession();
      expect(
        run(session, [
          "startEngine(ignitionMode='STOP')",
          "lockDoors(unlock=False, door=['passenger', 'trunk'])",
          "lockDoors(unlock=False, door=['rear_right'])",
          "startEngine(ignitionMode='START')",
          'pressBrakePedal(pedalPosition=0.5)',
          "startEngine(ignitionMode='START')",
          'pressBrakePedal(pedalPosition=1)',
          "startEngine(ignitionMode='STOP')",
          "startEngine(ignitionMode='START')",
        ]),
      ).toEqual([
        '{"error": "All doors must be locked before starting the engine. Here are the unlocked doors: passenger, rear_right"}',
        "Error during execution: 'trunk'",
        '{"lockStatus": "locked", "remainingUnlockedDoors": 0}',
        '{"error": "Brake pedal needs to be pressed when starting the engine."}',
        '{"brakePedalStatus": "pressed", "brakePedalForce": 500.0}',
        '{"error": "Must press the brake fully before starting the engine."}',
        '{"brakePedalStatus": "pressed", "brakePedalForce": 1000.0}',
        '{"error": "Invalid ignition mode."}',
        '{"engineState": "running", "fuelLevel": 10.5, "batteryVoltage": 12.6}',
      ]);
    });

    it('should leave the engine stopped after a STOP that fails its checks', async () => {
      const session = await createSession();
      run(session, ["startEngine(ignitionMode='STOP')"]);
      expect(state(session)).toContain('"engine_state": "stopped"');
    });
  });

  describe('error paths that still change state', () => {
    it('should match BFCL results and the final state', async () => {
      const session = await createSession();
      run(session, [
        "lockDoors(unlock=False, door=['passenger', 'rear_right'])",
        'pressBrakePedal(pedalPosition=1)',
        "startEngine(ignitionMode='START')",
      ]);
      expect(
        run(session, [
          'setCruiseControl(speed=63, activate=True, distanceToNextVehicle=30)',
          "setCruiseControl(speed='abc', activate=True, distanceToNextVehicle=40)",
          "setCruiseControl(speed=65, activate=True, distanceToNextVehicle='45.5')",
          "adjustClimateControl(temperature=70, unit='fahrenheit')",
          "adjustClimateControl(temperature='70', unit='fahrenheit', fanSpeed=20)",
          'adjustClimateControl(temperature=20, fanSpeed=101)',
          'set_navigation(destination=5)',
          "fillFuelTank(fuelAmount='5')",
          'fillFuelTank(fuelAmount=40)',
        ]),
      ).toEqual([
        '{"error": "Invalid speed"}',
        "Error during execution: could not convert string to float: 'abc'",
        '{"cruiseStatus": "active", "currentSpeed": 65.0, "distanceToNextVehicle": 45.5}',
        '{"currentACTemperature": 70, "climateMode": "auto", "humidityLevel": 50.0}',
        "Error during execution: unsupported operand type(s) for -: 'str' and 'int'",
        '{"error": "Fan speed must be between 0 and 100."}',
        'Error during execution: can only concatenate str (not "int") to str',
        "Error during execution: '<' not supported between instances of 'str' and 'int'",
        '{"error": "Cannot fill gas above the tank capacity."}',
      ]);
      const final = state(session);
      // The raw temperature was stored before the Fahrenheit conversion raised.
      expect(final).toContain('"acTemperature": "70"');
      expect(final).toContain('"fanSpeed": 50');
      expect(final).toContain('"destination": 5');
      expect(final).toContain('"distanceToNextVehicle": 45.5');
      expect(final).toContain('"cruiseStatus": "active"');
    });

    it('should store the distance even when the speed is invalid', async () => {
      const session = await createSession();
      run(session, [
        'setCruiseControl(speed=63, activate=True, distanceToNextVehicle=30)',
      ]);
      expect(state(session)).toContain('"distanceToNextVehicle": 30.0');
    });

    it('should store Fahrenheit as Celsius', async () => {
      const session = await createSession();
      run(session, [
        "adjustClimateControl(temperature=70, unit='fahrenheit', fanSpeed=20, mode='cool')",
      ]);
      expect(state(session)).toContain(
        '"acTemperature": 21.11111111111111, "fanSpeed": 20, "acMode": "cool"',
      );
    });
  });

  describe('stateless helpers', () => {
    it('should print Python floats and draw from Random(141053)', async () => {
      const session = await createSession();
      expect(
        run(session, [
          'liter_to_gallon(liter=10)',
          'gallon_to_liter(gallon=2.5)',
          'get_current_speed()',
          'get_outside_temperature_from_google()',
          'check_tire_pressure()',
          "estimate_distance(cityA='08540', cityB='94704')",
          "displayCarStatus(option='brakePadle')",
          'liter_to_gallon(liter=(1, 2))',
        ]),
      ).toEqual([
        '{"gallon": 2.6417200000000003}',
        '{"liter": 9.463525}',
        '{"currentSpeed": 111.92365689097284}',
        '{"outsideTemperature": 31.29968928699752}',
        '{"frontLeftTirePressure": 32.0, "frontRightTirePressure": 32.0, "rearLeftTirePressure": 30.0, "rearRightTirePressure": 30.0, "healthy_tire_pressure": true, "car_info": {}}',
        '{"distance": 2550.0}',
        '{"error": "Invalid option"}',
        "Error during execution: can't multiply sequence by non-int of type 'float'",
      ]);
    });
  });

  describe('long context', () => {
    it('should pad results with the long-context constants', async () => {
      const session = await createSession({ longContext: true });
      const [distance, brake] = run(session, [
        "estimate_distance(cityA='1', cityB='2')",
        "activateParkingBrake(mode='release')",
      ]);
      expect(distance).toMatch(
        /^\{"error": "distance not found in database\.", "intermediaryCities": \["New Hamilton", "Jacksonville", /,
      );
      expect(brake).toMatch(
        /^\{"parkingBrakeInstruction": "The parking brake, also commonly/,
      );
      expect(brake).toMatch(
        /"parkingBrakeStatus": "released", "_parkingBrakeForce": 0\.0, "_slopeAngle": 10\.0\}$/,
      );
      expect(state(session)).toContain('"long_context": true');
    });

    it('should append outsideTemperature to the realm-global weather dict', async () => {
      const session = await createSession({ longContext: true });
      const [first, second] = run(session, [
        'get_outside_temperature_from_google()',
        'get_outside_temperature_from_google()',
      ]);
      expect(first).toMatch(/^\{"-1_day": \{"windSpeed": 15\.0, /);
      // The key is added once, at the end; each result is rendered at once,
      // so the first shows the first draw.
      expect(first).toMatch(
        /"dewPoint": 9\.0\}, "outsideTemperature": 36\.63485703790535\}$/,
      );
      expect(second).toMatch(
        /"dewPoint": 9\.0\}, "outsideTemperature": 31\.29968928699752\}$/,
      );
    });

    it('should share the weather dict within a realm and never across realms', async () => {
      const realm = await createRealm();
      const call =
        VehicleControlApi.methods['get_outside_temperature_from_google']!.call;
      const [a, b] = [
        new VehicleControlApi(realm),
        new VehicleControlApi(realm),
      ];
      const other = new VehicleControlApi(await createRealm());
      for (const instance of [a, b, other])
        instance.loadScenario(new PyDict(), true);
      const fromA: PyValue = call(a, []);
      expect(call(b, [])).toBe(fromA);
      expect(call(other, [])).not.toBe(fromA);
      const constant = realm.longContextConstant(
        'LONG_WEATHER_EXTENSION',
      ) as PyDict;
      expect(constant.has('outsideTemperature')).toBe(false);
    });
  });
});

describe.skipIf(hasSharedBfclData)(
  'VehicleControlApi without shared data',
  () => {
    it.skip(sharedDataSkipMessage, () => {});
  },
);
