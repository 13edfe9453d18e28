import type { ErrorRewrite } from '@seal/spec';

/**
 * Environment Tuning's actionable environment augmentation (A4), as error
 * rewrites over BFCL's error texts: each says (1) what was wrong, (2) the
 * violated constraint, and (3) a concrete next action — the valid values or
 * the tool that discovers them. Our wording; the rewritten text replaces the
 * original in the training observation only. `{tool}` is the failing tool.
 */
export function actionableErrorRewrites(): ErrorRewrite[] {
  const rewrite = (
    id: string,
    pattern: string,
    replacement: string,
    flags = '',
  ): ErrorRewrite => ({
    id,
    pattern,
    flags,
    replacement,
  });
  return [
    rewrite(
      'route-unavailable',
      String.raw`No available route for the given (?:airports|parameters)\.?`,
      "No route for these airports: at least one airport code is invalid or the pair is not served. Use 'list_all_airports' to see valid codes or 'get_nearest_airport_by_city' to find the code for a city.",
    ),
    rewrite(
      'exchange-rate',
      String.raw`No available exchange rate for the given currencies\.?`,
      'No exchange rate for this currency pair. Supported currencies are: USD, RMB, EUR, JPY, GBP, CAD, AUD, INR, RUB, BRL, MXN. Check the currency codes.',
    ),
    rewrite(
      'travel-class',
      String.raw`Invalid travel class\.[^"]*`,
      'Invalid travel class. Use one of: economy, business, first.',
    ),
    rewrite(
      'distance-unknown',
      String.raw`distance not found in database\.?`,
      "Unknown zipcode pair: check both zipcodes. Use 'get_zipcode_based_on_city' to find the zipcode of a city.",
    ),
    rewrite(
      'weather-unavailable',
      String.raw`\{"error": 404\}`,
      '{"error": "Weather.com service is currently unavailable. Use get_outside_temperature_from_google() instead."}',
    ),
    rewrite(
      'cd-path',
      String.raw`cd: ([^"]*/[^"]*): No such directory\. You cannot use path to change directory\.`,
      "cd: '$1': Paths are not allowed. Use 'cd' to move one directory at a time.",
    ),
    rewrite(
      'cd-missing',
      String.raw`cd: ([^"/]*): No such directory\. You cannot use path to change directory\.`,
      "cd: '$1': No such directory here. Use 'ls' to list the directories in the current one.",
    ),
    rewrite(
      'file-missing',
      String.raw`(cat|grep|sort|tail|wc|rm|rmdir|mv|cp|diff): ([^"]*?): No such file or directory`,
      "$1: '$2': No such file in the current directory. Use 'ls' to list files, or 'cd' into the folder that holds it.",
    ),
    rewrite(
      'is-directory',
      String.raw`(cat|wc|echo): ([^"]*?): Is a directory`,
      "$1: '$2': Is a directory, not a file. Use 'cd' to enter it or 'ls' to list it.",
    ),
    rewrite(
      'invalid-character',
      String.raw`(cat|echo|mkdir|touch): (?:cannot [a-z ]+ )?'([^']*)': Invalid character`,
      "$1: '$2': Invalid character. Names cannot contain: | / \\\\ ? % * : > < \\\"",
    ),
    rewrite(
      'destination-path',
      String.raw`(cp|mv): (?:don't allow|no) path (?:allowed )?in destination[^"]*`,
      '$1: the destination must be a bare file or folder name in the current directory, not a path.',
    ),
    // Logins, by service: name the tool that logs in (ticket before trading,
    // whose messages share the "Please log in to" wording). The new texts
    // avoid "not logged in", which the generic rule below would rewrite again.
    rewrite(
      'twitter-login',
      String.raw`User not authenticated\. Please authenticate before ([a-z ]+)\.`,
      "Twitter login required: call 'authenticate_twitter' with the user's username and password first, then retry $1.",
    ),
    rewrite(
      'ticket-login',
      String.raw`User not authenticated\. Please log in to (create a ticket|view tickets)\.`,
      "Ticket system login required: call 'ticket_login' with the user's username and password first, then retry (to $1).",
    ),
    rewrite(
      'trading-login',
      String.raw`User not authenticated\. Please log in to ([a-z ]+)\.`,
      "Trading account login required: call 'trading_login' with the user's username and password first, then retry (to $1).",
    ),
    rewrite(
      'not-authenticated',
      String.raw`User not authenticated\.[^"]*|not logged in`,
      'Not logged in: authenticate with the login tool of this service first, then retry.',
      'i',
    ),
  ];
}

/**
 * Environment Tuning's missing-capability warning (A4 iii): prefixed to the
 * next question when the agent called tools in a turn whose ground truth is
 * empty (those calls are not executed and the turn is closed).
 */
export const missingCapabilityWarning =
  '(SYSTEM WARNING: You should not call any function in this turn because certain function description(s) or parameter(s) is missing in this turn. Previous turn is forced quit. Current function(s) will not be executed.) Next turn question: ';
