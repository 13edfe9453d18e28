/**
 * The word lists generated tasks draw their values from. Values are short,
 * plain ASCII and free of quotes and parentheses, so a request can quote them
 * and a small model can copy them character for character. Lists that a class
 * fixes (company names, airports, cities with zip codes) live with the class
 * and are imported from there.
 */

/** First names of people (messenger users, travellers, ticket users). */
export const firstNames = [
  'Alice',
  'Bruno',
  'Chloe',
  'Dmitri',
  'Elena',
  'Farid',
  'Grace',
  'Hiro',
  'Ingrid',
  'Jonas',
  'Keiko',
  'Liam',
  'Maya',
  'Nadia',
  'Omar',
  'Priya',
  'Quinn',
  'Rosa',
  'Sven',
  'Tara',
  'Umar',
  'Vera',
  'Wes',
  'Yara',
  'Zane',
  'Amir',
  'Bianca',
  'Carlos',
  'Dana',
  'Emil',
] as const;

/** Family names. */
export const lastNames = [
  'Adler',
  'Brooks',
  'Castillo',
  'Dubois',
  'Eriksen',
  'Fischer',
  'Garcia',
  'Haddad',
  'Ito',
  'Jensen',
  'Kowalski',
  'Larsen',
  'Moreau',
  'Novak',
  'Okafor',
  'Petrov',
  'Quintero',
  'Rossi',
  'Sato',
  'Tanaka',
  'Varga',
  'Weber',
  'Young',
  'Zimmer',
] as const;

/** Suffixes that turn a first name into an account handle (`maya_art`). */
export const handleSuffixes = [
  '_dev',
  '_art',
  '_runs',
  '_eats',
  '_reads',
  '_codes',
  '_trips',
  '_pics',
  '_music',
  '_lab',
] as const;

/** Words for passwords (`river42`). */
export const passwordWords = [
  'river',
  'maple',
  'comet',
  'falcon',
  'harbor',
  'cobalt',
  'meadow',
  'quartz',
  'ember',
  'willow',
  'summit',
  'lagoon',
  'tundra',
  'cedar',
  'orbit',
  'prism',
] as const;

/** File name stems. */
export const fileStems = [
  'notes',
  'report',
  'budget',
  'draft',
  'todo',
  'ideas',
  'summary',
  'plan',
  'journal',
  'invoice',
  'agenda',
  'recipes',
  'contacts',
  'results',
  'schedule',
  'minutes',
  'roadmap',
  'backlog',
  'outline',
  'checklist',
  'survey',
  'inventory',
  'expenses',
  'playlist',
] as const;

/** File extensions. */
export const fileExtensions = ['txt', 'md', 'csv', 'log'] as const;

/** Folder names. */
export const folderNames = [
  'docs',
  'archive',
  'projects',
  'photos',
  'backup',
  'reports',
  'drafts',
  'music',
  'temp',
  'shared',
  'invoices',
  'research',
  'assets',
  'old',
  'personal',
  'work',
  'travel',
  'scripts',
] as const;

/** Names of the root folder of a file system. */
export const rootFolderNames = [
  'workspace',
  'home',
  'files',
  'desk',
  'storage',
] as const;

/** Short lines of text for file contents; each has a distinctive first word. */
export const textLines = [
  'buy milk and eggs',
  'call the bank today',
  'fix the login bug',
  'review the budget',
  'book a meeting room',
  'send the invoice',
  'water the plants',
  'update the roadmap',
  'renew the passport',
  'clean the garage',
  'email the landlord',
  'print the tickets',
  'backup the laptop',
  'order new chairs',
  'plan the offsite',
  'pay the electricity bill',
  'walk the dog',
  'test the new build',
  'draft the newsletter',
  'collect the parcel',
  'sign the contract',
  'check the oil',
  'read chapter four',
  'return the library books',
] as const;

/** Words that occur in {@link textLines} and nowhere else in a file, for searches. */
export const searchWords = [
  'bank',
  'budget',
  'invoice',
  'plants',
  'roadmap',
  'passport',
  'garage',
  'landlord',
  'tickets',
  'laptop',
  'chairs',
  'offsite',
  'dog',
  'build',
  'newsletter',
  'parcel',
  'contract',
  'oil',
  'milk',
  'library',
] as const;

/** Short messages between people. */
export const messageTexts = [
  'lunch at noon',
  'the report is ready',
  'see you at five',
  'meeting moved to Friday',
  'please review my draft',
  'thanks for the help',
  'call me back',
  'the server is down',
  'running ten minutes late',
  'happy birthday',
  'the slides are done',
  'coffee tomorrow',
  'the invoice was paid',
  'flight lands at nine',
  'keys are at the desk',
  'great job today',
  'budget approved',
  'the demo went well',
  'pick up some bread',
  'see the new ticket',
] as const;

/**
 * Posts for the social feed. Each has one keyword that no other post in this
 * list contains, so a keyword search finds exactly one of them.
 */
export const postTexts = [
  { text: 'Just finished a long run by the river', keyword: 'river' },
  { text: 'Trying a new pasta recipe tonight', keyword: 'pasta' },
  { text: 'Our garden tomatoes are finally red', keyword: 'tomatoes' },
  { text: 'Reading a great mystery novel', keyword: 'mystery' },
  { text: 'The sunset over the bay was amazing', keyword: 'sunset' },
  { text: 'New blog post about chess openings', keyword: 'chess' },
  { text: 'Learning to play the violin', keyword: 'violin' },
  { text: 'Hiking the northern trail this weekend', keyword: 'hiking' },
  { text: 'Fresh bagels at the corner bakery', keyword: 'bagels' },
  { text: 'Painted a small lighthouse today', keyword: 'lighthouse' },
  { text: 'Our team won the robotics contest', keyword: 'robotics' },
  { text: 'Coffee tastes better in the mountains', keyword: 'mountains' },
  { text: 'Finally fixed my old bicycle', keyword: 'bicycle' },
  { text: 'Watching the meteor shower tonight', keyword: 'meteor' },
  { text: 'Homemade pizza with basil from the balcony', keyword: 'pizza' },
  { text: 'First snow of the year in town', keyword: 'snow' },
] as const;

/** Hashtags. */
export const hashtags = [
  '#travel',
  '#food',
  '#coding',
  '#music',
  '#fitness',
  '#books',
  '#art',
  '#nature',
  '#coffee',
  '#photo',
  '#garden',
  '#science',
] as const;

/** Replies to posts. */
export const replyTexts = [
  'Love this',
  'So cool',
  'Congrats',
  'Looks great',
  'Well done',
  'Amazing work',
  'Count me in',
  'Nice one',
  'Great idea',
  'Thanks for sharing',
] as const;

/** Ticket titles; each has a distinctive word that no other title contains. */
export const ticketTopics = [
  { title: 'Printer jam on floor two', word: 'Printer' },
  { title: 'VPN not connecting', word: 'VPN' },
  { title: 'Laptop battery drains fast', word: 'battery' },
  { title: 'Cannot reset password', word: 'password' },
  { title: 'Email not syncing', word: 'Email' },
  { title: 'Monitor flickers', word: 'Monitor' },
  { title: 'Wifi drops every hour', word: 'Wifi' },
  { title: 'License key expired', word: 'License' },
  { title: 'Keyboard keys stuck', word: 'Keyboard' },
  { title: 'Shared drive is full', word: 'drive' },
  { title: 'Projector shows no image', word: 'Projector' },
  { title: 'Headset microphone muted', word: 'microphone' },
  { title: 'Calendar invites missing', word: 'Calendar' },
  { title: 'Badge reader broken', word: 'Badge' },
] as const;

/** Ticket descriptions. */
export const ticketDescriptions = [
  'Started this morning',
  'Happens after every restart',
  'Affects the whole team',
  'Only on the old laptop',
  'Tried turning it off and on',
  'Urgent before the demo',
] as const;

/** Ticket resolutions. */
export const resolutions = [
  'Replaced the toner',
  'Restarted the router',
  'Reinstalled the driver',
  'Reset the account',
  'Cleared the cache',
  'Updated the firmware',
  'Swapped the cable',
  'Renewed the license',
] as const;

/** Street addresses for navigation (`street, city, state` is built from them). */
export const streets = [
  '12 Elm Street',
  '48 Oak Avenue',
  '7 Harbor Road',
  '230 Pine Lane',
  '91 Maple Drive',
  '5 Cedar Court',
  '66 Birch Way',
  '19 Lake Street',
  '304 Hill Road',
  '88 River Lane',
] as const;

/** US state codes for addresses. */
export const stateCodes = [
  'CA',
  'NY',
  'TX',
  'WA',
  'OR',
  'IL',
  'MA',
  'CO',
] as const;
